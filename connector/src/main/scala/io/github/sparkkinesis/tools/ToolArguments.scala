// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

/** A command of the offsets tool: its name, its one positional argument and its `--name value` flags. */
final case class ToolArguments(command: String, argument: String, flags: Map[String, String]) {
  def flag(name: String): Option[String] = flags.get(name)
}

object ToolArguments {
  /** Each command, what its positional argument is, and the flags it takes (an alias maps to its flag). */
  private final case class Command(argument: String, flags: Set[String])

  private val commands = Map(
    "show" -> Command("CHECKPOINT", Set("--region", "--endpoint-url")),
    "import" -> Command("PATH", Set("--from", "--stream", "--metadata-path")),
    "at-timestamp" -> Command("TIME", Set("--stream", "--region", "--endpoint-url")))

  private val aliases = Map("--endpoint" -> "--endpoint-url")

  val Usage: String =
    """usage: offsets show CHECKPOINT [--region REGION] [--endpoint-url URL]
      |       offsets import PATH --from qubole|awslabs [--stream NAME] [--metadata-path PATH]
      |       offsets at-timestamp TIME [--stream NAME[,NAME...]] [--region REGION] [--endpoint-url URL]
      |
      |show          the positions of a checkpoint of this connector, as of its last committed batch; with
      |              --region or --endpoint-url also how far behind each shard is (AWS credentials from the
      |              default chain)
      |import        the initialPosition JSON that continues a qubole (kinesis-sql) or awslabs
      |              (spark-sql-kinesis-connector) query right after the last record it committed; PATH is
      |              that query's checkpointLocation, --metadata-path the value of its
      |              kinesis.executor.metadata.path (qubole) or kinesis.metadataPath (awslabs) if it set one
      |time          an ISO 8601 time with its zone (2026-11-26T20:00:00Z) or epoch milliseconds
      |at-timestamp  the initialPosition JSON that starts at that time; with --stream and --region or
      |              --endpoint-url, per shard of each stream
      |
      |Exit codes: 0 done, 1 the command failed (the message says why), 2 bad usage.""".stripMargin

  /** The arguments, or a [[ToolError]] (usage) saying what is wrong; None asks for the usage text. */
  def parse(args: Seq[String]): Option[ToolArguments] = args.toList match {
    case Nil => throw new ToolError(s"give a command: ${commands.keys.toSeq.sorted.mkString(", ")}", usage = true)
    case ("help" | "-h" | "--help") :: _ => None
    case _ :: rest if rest.exists(w => w == "-h" || w == "--help") => None
    case name :: rest =>
      val command = commands.getOrElse(name,
        throw new ToolError(
          s"unknown command '$name'; the commands are ${commands.keys.toSeq.sorted.mkString(", ")}", usage = true))
      Some(parseCommand(name, command, rest))
  }

  private def parseCommand(name: String, command: Command, args: List[String]): ToolArguments = {
    var positional = List.empty[String]
    var flags = Map.empty[String, String]
    var rest = args
    while (rest.nonEmpty) {
      val word = rest.head
      if (word.startsWith("--")) {
        val (given, inline) = word.split("=", 2) match {
          case Array(f, v) => (f, Some(v))
          case Array(f) => (f, None)
        }
        val flag = aliases.getOrElse(given, given)
        if (!command.flags.contains(flag)) {
          throw new ToolError(s"$name takes no $given; it takes ${command.flags.toSeq.sorted.mkString(", ")}",
            usage = true)
        }
        val value = inline.orElse(rest.tail.headOption.filterNot(_.startsWith("--")))
          .getOrElse(throw new ToolError(s"$given needs a value", usage = true))
        if (value.trim.isEmpty) throw new ToolError(s"$given needs a value, not an empty one", usage = true)
        if (flags.contains(flag)) throw new ToolError(s"$given is given twice", usage = true)
        flags += flag -> value
        rest = if (inline.isDefined) rest.tail else rest.drop(2)
      } else {
        positional :+= word
        rest = rest.tail
      }
    }
    positional match {
      case Seq(argument) => ToolArguments(name, argument, flags)
      case Seq() => throw new ToolError(s"$name needs its ${command.argument} argument", usage = true)
      case more => throw new ToolError(s"$name takes one ${command.argument}, not ${more.size}: ${more.mkString(" ")}",
          usage = true)
    }
  }
}
