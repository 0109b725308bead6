import { spawn } from 'node:child_process'
import { ToolError } from '@tooltx/core'
import { workspaceTool } from './workspace-tool.js'

/** The checks the workspace defines, each a Node script under `scripts/`. */
const CHECKS = { lint: 'scripts/lint.mjs', 'slow-check': 'scripts/slow-check.mjs' } as const

/**
 * `run_check`: runs one of the workspace's check scripts in a child process. It honours its
 * signal by killing the child, so the built-in timeout wrapper can stop it (`timeoutMs`).
 */
export const runCheckTool = workspaceTool({
  name: 'run_check',
  description: 'Run one of the workspace checks (lint, slow-check) and return its output.',
  parameters: {
    check: { type: 'string', enum: ['lint', 'slow-check'], required: true, description: 'Which check' },
  },
  fields: { exitCode: 'integer', output: 'string' },
  text: (args, value) => `${args.check} exited with ${value.exitCode}\n${value.output}`.trimEnd(),
  meta: 'value',
  timeoutMs: 1_000,
  async execute(args, run, workspace) {
    // The script is a workspace file like any other: a link out of the root or to a secret is refused.
    const script = await workspace.resolve(CHECKS[args.check as keyof typeof CHECKS])
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script], {
        cwd: workspace.root,
        signal: run.signal,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (chunk) => (output += chunk))
      child.stderr.on('data', (chunk) => (output += chunk))
      child.on('error', (error) => {
        if (run.signal.aborted) reject(new ToolError('CHECK_STOPPED', `check "${args.check}" was stopped`))
        else reject(error)
      })
      child.on('close', (code) => resolve({ exitCode: code ?? 1, output }))
    })
  },
  presentCall: (args) => ({ card: 'terminal', title: `Run ${args.check}`, cwd: '.' }),
  presentResult: (args, result) => {
    const meta = result.meta as { exitCode?: number; output?: string } | undefined
    if (meta === undefined) return undefined
    return {
      card: 'terminal',
      title: `Run ${args.check}`,
      ...(meta.output !== undefined ? { output: meta.output } : {}),
      ...(meta.exitCode !== undefined ? { exitCode: meta.exitCode } : {}),
    }
  },
})
