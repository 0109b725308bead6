import { createToolRuntime, defineTool, type JsonValue, type ToolRuntime } from '@tooltx/core'

/** What `countedTool` registers: the tool's name and description, and what its body answers. */
export interface CountedTool<T extends JsonValue> {
  readonly name: string
  readonly description: string
  readonly body: (text: string) => Promise<T> | T
}

/**
 * A runtime with one tool `name {text}` (a required string) whose body runs `body(text)`, and
 * `runs()`, how many times that body ran.
 */
export function countedTool<T extends JsonValue>(
  tool: CountedTool<T>,
): { runtime: ToolRuntime; runs: () => number } {
  const { name, description, body } = tool
  let count = 0
  const runtime = createToolRuntime()
  const parameters = { text: { type: 'string', required: true } } as const
  const execute = ({ text }: { text: string }) => {
    count++
    return body(text)
  }
  runtime.register(defineTool({ name, description, parameters, execute }))
  return { runtime, runs: () => count }
}
