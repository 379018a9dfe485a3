// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.credentials

import java.lang.reflect.{InvocationTargetException, Method, Modifier}

import scala.util.Try

import software.amazon.awssdk.auth.credentials.{
  AwsBasicCredentials, AwsCredentials => SdkCredentials, AwsCredentialsProvider, AwsSessionCredentials
}

import io.github.sparkkinesis.client.CredentialsConfig.ProviderClass

/**
 * Builds the credentials provider a user names by class (`awsCredentialsProvider`): by a public
 * constructor taking the parameter (`awsCredentialsProviderSecret`, a String) or a static
 * `create(String)` when a parameter is given, else by a public no-argument constructor or a
 * static `create()`.
 *
 * The connector's jar carries the AWS SDK renamed under `io.github.sparkkinesis.shaded`, so a
 * class compiled against the SDK as published implements an interface of the same name that is
 * not the connector's. Both are accepted: the connector's (shaded) interface as is, the
 * published one through [[ReflectiveProvider]], which calls its `resolveCredentials()` at every
 * request. The SDK's own providers may be named as published
 * (`software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider`): where that class is not
 * on the classpath, the connector's copy of it is used.
 */
object CustomCredentials {
  /** The prefix build.sbt's shade rules put before the SDK's package names. */
  private val ShadedPrefix = "io.github.sparkkinesis.shaded."
  private val ProviderInterface = classOf[AwsCredentialsProvider]
  /** The interface's name as users compile against it: computed, so shading cannot rename the text. */
  private[client] val PublishedInterfaceName = ProviderInterface.getName.stripPrefix(ShadedPrefix)
  private val shaded = ProviderInterface.getName.startsWith(ShadedPrefix)

  /** What the option accepts, for error messages. */
  val Allowed: String = s"the name of a class implementing $PublishedInterfaceName (AWS SDK v2), on the classpath " +
    "of the driver and every executor, with a public constructor taking awsCredentialsProviderSecret as a String " +
    "or a static create(String) when that is given, else a public no-argument constructor or a static create()"

  /**
   * The provider `config` names, built now. Fails with [[CredentialsProviderException]], whose
   * message never holds the parameter.
   */
  def provider(config: ProviderClass): AwsCredentialsProvider = {
    val cls = load(config.className)
    val instance = construct(cls, config.parameter)
    if (ProviderInterface.isInstance(instance)) instance.asInstanceOf[AwsCredentialsProvider]
    else new ReflectiveProvider(instance)
  }

  private def load(name: String): Class[_] = {
    val loaders = Seq(Thread.currentThread().getContextClassLoader, getClass.getClassLoader).filter(_ != null)
    def find(n: String) = loaders.iterator.map { l =>
      try Try(Class.forName(n, false, l)).toOption
      catch {
        // Loading a class loads its superclass and interfaces: the published SDK's may be missing.
        case e: LinkageError =>
          throw new CredentialsProviderException(s"class $name needs classes that are not on the classpath " +
            s"(${e.getClass.getSimpleName}: ${e.getMessage}); a class compiled against the AWS SDK as published " +
            "needs that SDK's jars beside it")
      }
    }.collectFirst { case Some(c) => c }
    val cls = find(name).orElse(if (shaded) find(ShadedPrefix + name) else None).getOrElse(
      throw new CredentialsProviderException(s"class $name was not found on the classpath (add its jar with " +
        "--jars or spark.jars, so that the driver and the executors have it)"))
    if (!ProviderInterface.isAssignableFrom(cls) && !implementsPublished(cls)) {
      throw new CredentialsProviderException(s"class $name does not implement $PublishedInterfaceName (a class " +
        "written for another connector's own provider interface must implement the AWS SDK v2's instead)")
    }
    if (Modifier.isAbstract(cls.getModifiers)) {
      throw new CredentialsProviderException(s"class $name is abstract or an interface; name a concrete class")
    }
    cls
  }

  /** Whether `cls` implements the SDK's provider interface as published (not the connector's copy). */
  private[client] def implementsPublished(cls: Class[_]): Boolean =
    Iterator.iterate[Class[_]](cls)(_.getSuperclass).takeWhile(_ != null).exists(c =>
      c.getInterfaces.exists(i => i.getName == PublishedInterfaceName || implementsPublished(i)))

  private def construct(cls: Class[_], parameter: Option[String]): AnyRef = {
    val name = cls.getName
    val ctorArgs: Array[Class[_]] = parameter.fold(Array.empty[Class[_]])(_ => Array(classOf[String]))
    val args: Array[AnyRef] = parameter.toArray[AnyRef]
    val viaConstructor =
      Try(cls.getConstructor(ctorArgs: _*)).toOption.map(c => () => c.newInstance(args: _*).asInstanceOf[AnyRef])
    val viaCreate = Try(cls.getMethod("create", ctorArgs: _*)).toOption
      .filter(m => Modifier.isStatic(m.getModifiers)).map(m => () => m.invoke(null, args: _*))
    val build = viaConstructor.orElse(viaCreate).getOrElse {
      val wanted = if (parameter.isDefined) "a public constructor taking one String or a static create(String), " +
        "as awsCredentialsProviderSecret is given"
      else "a public no-argument constructor or a static create() " +
        "(or give awsCredentialsProviderSecret, for a constructor taking one String)"
      throw new CredentialsProviderException(s"class $name has neither: it needs $wanted")
    }
    val instance =
      try build()
      catch {
        case e: InvocationTargetException =>
          val cause = Option(e.getCause).getOrElse(e)
          throw new CredentialsProviderException(s"building $name failed: ${cause.getClass.getName}: " +
            scrub(String.valueOf(cause.getMessage), parameter))
        case e: ReflectiveOperationException =>
          throw new CredentialsProviderException(s"building $name failed: ${e.getClass.getName}")
      }
    if (instance == null) throw new CredentialsProviderException(s"$name.create returned null")
    instance
  }

  /** The message without the parameter, which may be a secret. */
  private[client] def scrub(message: String, parameter: Option[String]): String =
    parameter.filter(_.nonEmpty).fold(message)(p => message.replace(p, "<redacted>"))
}

/**
 * A provider compiled against the AWS SDK as published, called by reflection: each
 * `resolveCredentials()` asks it again (it renews its credentials itself) and copies the access
 * key id, secret key and session token it answers into the connector's SDK types.
 */
final class ReflectiveProvider(target: AnyRef) extends AwsCredentialsProvider {
  private val resolve: Method = accessible(target.getClass.getMethod("resolveCredentials"))

  override def resolveCredentials(): SdkCredentials = {
    val credentials =
      try resolve.invoke(target)
      catch { case e: InvocationTargetException if e.getCause != null => throw e.getCause }
    def text(method: String): Option[String] =
      Try(accessible(credentials.getClass.getMethod(method))).toOption.flatMap(m => Option(m.invoke(credentials)))
        .map(_.toString)
    val id = text("accessKeyId")
    val secret = text("secretAccessKey")
    (id, secret, text("sessionToken")) match {
      case (Some(i), Some(s), Some(t)) => AwsSessionCredentials.create(i, s, t)
      case (Some(i), Some(s), None) => AwsBasicCredentials.create(i, s)
      case _ =>
        throw new CredentialsProviderException(s"${target.getClass.getName}.resolveCredentials() answered " +
          "credentials without an access key id or a secret access key")
    }
  }

  override def toString: String = s"ReflectiveProvider(${target.getClass.getName})"

  // A public method of a class that is not public itself (a nested or anonymous class) needs this.
  private def accessible(m: Method): Method = { Try(m.setAccessible(true)); m }
}

/** A credentials provider class cannot be used; the message says why and never holds a secret. */
final class CredentialsProviderException(message: String) extends RuntimeException(message)
