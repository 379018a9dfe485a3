# SPDX-License-Identifier: Apache-2.0
"""``python -m pyspark_kinesis offsets``: the launcher, and the commands run through the bundled
jar on checkpoints written here in the layouts Spark, qubole's kinesis-sql and awslabs'
spark-sql-kinesis-connector write (needs the wheel's jar and Java, as ``make test-python`` has)."""

import io
import json
from pathlib import Path

from pyspark_kinesis import _cli, _offsets

PLANNED = 1764187200000  # 2025-11-26T20:00:00Z
SEQ = "49590338271490256608559692538361571095921575989136588898"
LATER = "49590338271490256608559692538361571095921575989136589999"
S0, S1, S2 = (f"shardId-00000000000{i}" for i in range(3))


class OldCheckpoint:
    """A checkpoint as Spark lays it out (offsets/N: "v1", batch metadata, a line per source;
    commits/N), with the per-batch, per-shard files qubole (shard-commit) and awslabs
    (shard-source) keep under a source's metadata folder."""

    def __init__(self, root: Path):
        self.root = root

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return self

    def offsets(self, batch, *source_lines, planned=PLANNED):
        meta = json.dumps({"batchWatermarkMs": 0, "batchTimestampMs": planned, "conf": {}})
        return self.write(f"offsets/{batch}", "\n".join(["v1", meta, *source_lines]))

    def commit(self, batch):
        return self.write(f"commits/{batch}", 'v1\n{"nextBatchWatermarkMs":0}')

    def shard_file(self, folder, batch, shard, info):
        return self.write(f"{folder}/{batch}/{shard}", json.dumps({"shardId": shard, **info}))


def line(stream, batch_id, **shards):
    """A source's line of the offset log as both connectors write it: every value a string."""
    entry = {"metadata": {"streamName": stream, "batchId": str(batch_id)}}
    entry.update(
        {
            shard: {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in info.items()}
            for shard, info in shards.items()
        }
    )
    return json.dumps(entry)


def at(kind, position="", **awslabs):
    return {"iteratorType": kind, "iteratorPosition": position, **awslabs}


def offsets_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    code = _cli.main(["offsets", *map(str, args)], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_the_command_runs_the_jars_tool_with_the_spark_jars(tmp_path, monkeypatch):
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("")
    jar = tmp_path / "connector.jar"
    jar.write_text("")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    monkeypatch.setenv("PYSPARK_KINESIS_JAR", str(jar))
    argv = _offsets.command(["show", "/chk"])
    assert argv[0] == str(java)
    classpath = argv[argv.index("-cp") + 1].split(":")
    assert classpath == [str(jar), str(_offsets.spark_jars() / "*")]
    assert argv[-3:] == [_offsets.MAIN_CLASS, "show", "/chk"]


def test_a_java_home_without_java_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    code, _, err = offsets_cli("show", tmp_path)
    assert code == 1
    assert err.strip() == f"error: JAVA_HOME is {str(tmp_path)!r}, which has no bin/java: point it at a Java 17 or 21"


def test_qubole_import_continues_after_the_last_committed_batch(tmp_path):
    old = (
        OldCheckpoint(tmp_path)
        .offsets(
            3, line("orders", 3, **{S0: at("TRIM_HORIZON"), S1: at("AFTER_SEQUENCE_NUMBER", SEQ), S2: at("SHARD_END")})
        )
        .commit(3)
        .shard_file("sources/0/shard-commit", 3, S0, at("AFTER_SEQUENCE_NUMBER", SEQ))
        .shard_file("sources/0/shard-commit", 3, S1, at("LATEST"))
        # Planned, not committed: Spark runs batch 4 again, so none of its reading counts.
        .offsets(4, line("orders", 4, **{S0: at("AFTER_SEQUENCE_NUMBER", SEQ)}))
        .shard_file("sources/0/shard-commit", 4, S0, at("AFTER_SEQUENCE_NUMBER", LATER))
    )
    code, out, err = offsets_cli("import", old.root, "--from", "qubole")
    assert code == 0, err
    assert json.loads(out) == {
        "version": 1,
        "shards": {
            "orders": {
                S0: {"type": "after", "seq": SEQ},
                S1: {"type": "at_timestamp", "ms": PLANNED},
                S2: {"type": "end"},
            }
        },
    }
    assert f"qubole checkpoint {old.root}: stream 'orders', batch 3 committed; 3 shards, 1 of them" in err


def test_awslabs_import_keeps_the_place_inside_an_aggregate_and_reads_a_moved_metadata_path(tmp_path):
    old = (
        OldCheckpoint(tmp_path / "chk")
        .offsets(
            0,
            line(
                "clicks",
                0,
                **{
                    S0: at("TRIM_HORIZON", subSequenceNumber=-1, isLast=True),
                    S1: at("TRIM_HORIZON", subSequenceNumber=-1, isLast=True),
                },
            ),
        )
        .commit(0)
    )
    meta = OldCheckpoint(tmp_path / "meta")
    meta.shard_file("shard-source", 0, S0, at("AFTER_SEQUENCE_NUMBER", SEQ, subSequenceNumber=2, isLast=False))
    meta.shard_file("shard-source", 0, S1, at("AFTER_SEQUENCE_NUMBER", LATER, subSequenceNumber=4, isLast=True))
    code, out, err = offsets_cli(
        "import", old.root, "--from", "awslabs", "--metadata-path", meta.root, "--stream", "clicks"
    )
    assert code == 0, err
    assert json.loads(out)["shards"]["clicks"] == {
        S0: {"type": "after", "seq": SEQ, "sub": 2},
        S1: {"type": "after", "seq": LATER},
    }


def test_a_bad_input_fails_with_the_tools_message_and_exit_code(tmp_path):
    # The tool's other errors and usage codes are tested in OffsetsToolSuite, without a JVM per case.
    code, _, err = offsets_cli("import", tmp_path / "gone", "--from", "qubole")
    assert (code, err.strip()) == (
        1,
        f"error: the checkpoint {tmp_path / 'gone'} does not exist: give the old query's checkpointLocation",
    )


def test_show_prints_this_connectors_committed_positions_and_skips_the_lag_when_not_asked(tmp_path):
    ours = {"version": 1, "shards": {"orders": {S0: {"type": "after", "seq": SEQ}, S1: {"type": "trim_horizon"}}}}
    chk = OldCheckpoint(tmp_path).offsets(5, json.dumps(ours)).commit(5)
    code, out, err = offsets_cli("show", chk.root)
    assert code == 0, err
    assert f"Checkpoint {chk.root}: batch 5 committed, planned at 2025-11-26T20:00:00Z." in out
    assert f"orders  {S0}  after {SEQ}" in out
    assert f"orders  {S1}  trim_horizon" in out
    assert "BEHIND" not in out
    assert "How far behind each shard is: not asked; give --region or --endpoint-url" in out


def test_at_timestamp_prints_the_json_the_source_reads(tmp_path):
    code, out, err = offsets_cli("at-timestamp", "2025-11-26T21:00:00+01:00")
    assert code == 0, err
    assert json.loads(out) == {"at_timestamp": "2025-11-26T20:00:00.000Z", "format": "yyyy-MM-dd'T'HH:mm:ss.SSSX"}


def test_help_is_the_tools_own():
    code, out, err = offsets_cli("--help")
    assert code == 0, err
    assert "usage: offsets show CHECKPOINT" in out
