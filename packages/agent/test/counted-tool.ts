import {
  createToolRuntime,
  defineTool,
  type JsonValue,
  type RuntimeScope,
  type ToolEffect,
  type ToolRuntime,
} from '@tooltx/core'

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

/**
 * A runtime and scope with one tool per `[name, effect]` (a required number `n`, answering
 * `{ n }`) where `pay` asks for approval; `runs` notes every body run as `<name> <n>`.
 */
export function effectTools(tools: readonly (readonly [string, ToolEffect])[]): {
  runtime: ToolRuntime
  scope: RuntimeScope
  runs: string[]
} {
  const runs: string[] = []
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  for (const [name, effect] of tools) {
    const parameters = { n: { type: 'number', required: true } } as const
    const execute = async ({ n }: { n: number }) => {
      runs.push(`${name} ${n}`)
      return { n }
    }
    scope.register(defineTool({ name, description: name, effect, parameters, execute }))
  }
  runtime.onPreExecute(async (exec, next) => (exec.name === 'pay' ? { kind: 'ask' } : next()))
  return { runtime, scope, runs }
}

/** A model's tool-call block for `name` with arguments `{ n }`. */
export const block = (id: string, name: string, n: number) =>
  ({ type: 'tool-call', id, name, arguments: JSON.stringify({ n }) }) as const
