// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

/**
 * A command of the offsets tool cannot go on; the message says which argument or file is wrong
 * and what was expected. `usage`: the command line itself is wrong (exit code 2), not what it
 * names (exit code 1).
 */
final class ToolError(message: String, val usage: Boolean = false, cause: Throwable = null)
  extends RuntimeException(message, cause)
