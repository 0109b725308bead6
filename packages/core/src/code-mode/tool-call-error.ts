/**
 * The rejection a Code Mode binding call gets when its nested tool call fails (X3.4). The
 * sandbox rebuilds it inside the program from `name`, `message`, `toolName` and `code`.
 */
export class ToolCallError extends Error {
  /** The tool the program called. */
  readonly toolName: string
  /** The failure's `error.info.code` (for example `DENIED` or `TOOL_FAILED`). */
  readonly code: string

  /** `message` is the failure's `error.message`; nothing else from the result is carried. */
  constructor(toolName: string, code: string, message: string) {
    super(message)
    this.name = 'ToolCallError'
    this.toolName = toolName
    this.code = code
  }
}
