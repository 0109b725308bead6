import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { onTestFinished } from 'vitest'

const run = promisify(execFile)
let sockets = 0

/** True when tmux is installed (the terminal tests need it; CI installs it). */
export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/**
 * A command running in a real pseudo-terminal (a detached tmux pane of `width` × `height`),
 * so stdin and stdout are TTYs exactly as for a person. After the command exits the pane
 * shows `[exit <status>]`. The tmux server is killed when the current test finishes.
 */
export class Terminal {
  readonly #socket: string

  private constructor(socket: string) {
    this.#socket = socket
  }

  /** Starts `argv` in `cwd` with `env`. */
  static async start(
    argv: string[],
    options: { cwd: string; env: NodeJS.ProcessEnv; width?: number; height?: number },
  ): Promise<Terminal> {
    const socket = `tooltx-test-${process.pid}-${++sockets}`
    const quoted = argv.map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ')
    const script = `cd '${options.cwd}' && ${quoted}; echo "[exit $?]"; sleep 600`
    const terminal = new Terminal(socket)
    onTestFinished(() => terminal.close())
    await run(
      'tmux',
      [
        '-L',
        socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'main',
        '-x',
        String(options.width ?? 100),
        '-y',
        String(options.height ?? 40),
        script,
      ],
      { env: { ...options.env, TERM: 'xterm-256color' } },
    )
    await run('tmux', ['-L', socket, 'set-option', '-g', 'history-limit', '10000'])
    return terminal
  }

  /** Everything the pane shows and scrolled past, soft-wrapped lines joined. */
  async screen(): Promise<string> {
    const { stdout } = await run('tmux', [
      '-L',
      this.#socket,
      'capture-pane',
      '-p',
      '-J',
      '-S',
      '-',
      '-t',
      'main',
    ])
    return stdout
  }

  /** Waits until the screen matches `pattern` and returns the screen; fails after `ms`. */
  async waitFor(pattern: RegExp, ms = 20_000): Promise<string> {
    const deadline = Date.now() + ms
    for (;;) {
      const screen = await this.screen()
      if (pattern.test(screen)) return screen
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${pattern}; the screen shows:\n${screen}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /** Types `keys` (tmux key names such as `Enter` and `C-c`, or literal text). */
  async keys(...keys: string[]): Promise<void> {
    await run('tmux', ['-L', this.#socket, 'send-keys', '-t', 'main', ...keys])
  }

  /** Waits for the command to exit and returns its exit status and the screen. */
  async exit(ms = 20_000): Promise<{ code: number; screen: string }> {
    const screen = await this.waitFor(/\[exit \d+\]/, ms)
    return { code: Number(/\[exit (\d+)\]/.exec(screen)![1]), screen }
  }

  close(): void {
    try {
      execFileSync('tmux', ['-L', this.#socket, 'kill-server'], { stdio: 'ignore' })
    } catch {
      // Already gone.
    }
  }
}
