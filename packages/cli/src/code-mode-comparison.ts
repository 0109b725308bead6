import { readdirSync } from 'node:fs'
import path from 'node:path'
import { createAgent, type ScriptedStep, scripted } from '@tooltx/agent'
import type { ContentBlock, ToolMode } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { quickjsRuntime } from '@tooltx/sandbox'
import { memoryStore, openSession } from '@tooltx/session'
import type { Output } from './display/output.js'
import { ESTIMATE_NOTE, type TokenCounting, tokenCounting } from './token-counting.js'
import { createToolset } from './toolset.js'

/** The task both runs perform. */
export const COMPARISON_TASK = 'Find the TODOs in src/ and tell me how many lines each file there has.'

/** The Code Mode program: it calls the same tools and returns only a compact summary. */
export const COMPARISON_PROGRAM = `const { paths } = await tools.list_files({ path: 'src' })
const { matches } = await tools.grep({ pattern: 'TODO', path: 'src' })
const files = await Promise.all(paths.map((path) => tools.read_file({ path, limit: 100000 })))
return files
  .map((file) => {
    const todos = matches.filter((m) => m.path === file.path).map((m) => m.line)
    return \`\${file.path}: \${file.totalLines} lines, TODO at \${todos.length > 0 ? todos.join(', ') : 'none'}\`
  })
  .join('\\n')`

/** The files under `<root>/src`, relative to `root`, sorted (what the native model reads after listing). */
function sourceFiles(root: string): string[] {
  const found: string[] = []
  const pending = ['src']
  while (pending.length > 0) {
    const dir = pending.pop()!
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`
      if (entry.isDirectory()) pending.push(rel)
      else if (entry.isFile()) found.push(rel)
    }
  }
  return found.sort()
}

function nativeScript(root: string): ScriptedStep[] {
  return [
    {
      text: 'Listing src/ and searching it for TODOs.',
      toolCalls: [
        { id: 'call_list', name: 'list_files', arguments: '{"path":"src"}' },
        { id: 'call_grep', name: 'grep', arguments: '{"pattern":"TODO","path":"src"}' },
      ],
    },
    {
      text: 'Reading each file to count its lines.',
      toolCalls: sourceFiles(root).map((file, i) => ({
        id: `call_read_${i + 1}`,
        name: 'read_file',
        arguments: JSON.stringify({ path: file, limit: 100000 }),
      })),
    },
    { text: 'Here are the TODOs and the line counts of the files in src/.' },
  ]
}

function codeScript(): ScriptedStep[] {
  return [
    {
      toolCalls: [
        {
          id: 'call_code',
          name: RUN_CODE,
          arguments: JSON.stringify({
            code: COMPARISON_PROGRAM,
            description: 'Count lines and TODOs in src/',
          }),
        },
      ],
    },
    { text: 'Here are the TODOs and the line counts of the files in src/.' },
  ]
}

/** Tokens of one content block: a text block's text, anything else as its JSON. */
function blockText(block: ContentBlock): string {
  return block.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(block)
}

/** Runs the task once in `mode` and returns the tool messages' text and its token count. */
async function runOnce(
  root: string,
  mode: ToolMode,
  count: TokenCounting['count'],
): Promise<{ tokens: number; calls: number; text: string[] }> {
  const { runtime, scope } = createToolset({ root, mode })
  const session = await openSession(memoryStore(), { id: `code-mode-comparison-${mode}` })
  const sandbox = mode === 'native' ? undefined : quickjsRuntime()
  try {
    const model = scripted(mode === 'native' ? nativeScript(root) : codeScript())
    const agent = createAgent({
      runtime,
      scope,
      session,
      model,
      ...(sandbox ? { codeRuntime: sandbox } : {}),
    })
    agent.send(COMPARISON_TASK)
    await agent.whenIdle()
    model.assertDone()
    const text: string[] = []
    let tokens = 0
    for (const message of session.messages()) {
      if (message.role !== 'tool') continue
      const content = message.content.map(blockText).join('\n')
      text.push(content)
      tokens += count(content)
    }
    return { tokens, calls: text.length, text }
  } finally {
    await session.close()
    await sandbox?.close()
  }
}

/**
 * Runs the same task twice with scripted models over the CLI toolset in `root` (which must
 * have a `src/` directory): natively, where every `list_files`, `grep` and `read_file` result
 * enters the model's context, and in Code Mode, where one `run_code` program makes the same
 * calls in the QuickJS sandbox and returns a one-line-per-file summary. Prints the tokens of
 * tool results that entered the context in each run and the saving, and returns both counts:
 * o200k_base counts with js-tiktoken, else estimates marked `≈` and a line saying how to get
 * exact ones (K3.23; `counting` defaults to `tokenCounting()`).
 */
export async function codeModeComparison(
  out: Output,
  root: string,
  counting?: TokenCounting,
): Promise<{ nativeTokens: number; codeTokens: number; exact: boolean }> {
  const { count, exact } = counting ?? (await tokenCounting())
  const about = exact ? '' : '≈'
  out.line(`Code Mode comparison — "${COMPARISON_TASK}"`)
  const native = await runOnce(root, 'native', count)
  out.line(`  native:    ${native.calls} tool results, ${about}${native.tokens} tokens entered the context`)
  const code = await runOnce(root, 'code', count)
  out.line(`  Code Mode: ${code.calls} tool result,  ${about}${code.tokens} tokens entered the context`)
  for (const line of (code.text[0] ?? '').split('\n')) out.line(`    │ ${line}`)
  const saving = native.tokens === 0 ? 0 : (1 - code.tokens / native.tokens) * 100
  out.line(`  saving:    ${about}${saving.toFixed(1)}% fewer tool-result tokens in Code Mode`)
  if (!exact) out.line(`  ${ESTIMATE_NOTE}`)
  return { nativeTokens: native.tokens, codeTokens: code.tokens, exact }
}
