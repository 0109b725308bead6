// @ts-check
/**
 * The guest half of the bridge. Its source text (`guestSetup.toString()`) is evaluated inside
 * each fresh QuickJS context before the program, so it must not refer to anything outside
 * its own body. It captures the intrinsics it relies on before any program code runs, so a
 * program that later tampers with `JSON`, `Reflect` or `Promise.prototype` only breaks
 * its own calls; the host re-validates every byte it receives anyway.
 *
 * Completion statuses passed to `hostDone`: 0 exception, 1 value (JSON text), 2 not lossless
 * JSON, 3 no value (`undefined`), 4 an exception that looks like running out of memory, 5 the
 * value could not be copied out for what looks like running out of memory (for 4 and 5 the
 * worker decides whether it was). Log lines and exception messages cross JSON-encoded, so a
 * lone surrogate survives the bridge.
 *
 * @param {(name: string, args: string) => number} hostCall posts a binding call; -1 once the run is over
 * @param {(line: string) => void} hostLog appends one log line (a JSON string literal)
 * @param {(status: number, text: string) => void} hostDone reports the completion once
 * @returns {(op: number, a: unknown, b?: unknown, c?: unknown) => void} the control function:
 *   `(2, namesJson)` defines `tools` for the binding names (a JSON array of strings),
 *   `(0, programFn)` starts the program, `(1, callId, ok, jsonText)` settles a binding call
 */
export function guestSetup(hostCall, hostLog, hostDone) {
  const global = globalThis
  const { create, defineProperty, freeze, getPrototypeOf, is } = Object
  const { apply, getOwnPropertyDescriptor, ownKeys } = Reflect
  const isArray = Array.isArray
  const isFiniteNumber = Number.isFinite
  const stringify = JSON.stringify
  const parse = JSON.parse
  const toText = String
  const ObjectPrototype = Object.prototype
  const ArrayPrototype = Array.prototype
  const promiseThen = Promise.prototype.then
  const promiseResolve = Promise.resolve
  const GuestPromise = Promise
  const GuestError = Error
  const GuestTypeError = TypeError
  // @ts-expect-error QuickJS defines InternalError (its out-of-memory and interrupt errors)
  const GuestInternalError = typeof InternalError === 'function' ? InternalError : undefined
  const GuestSet = Set
  const setHas = Set.prototype.has
  const setAdd = Set.prototype.add
  const setDelete = Set.prototype.delete
  const arrayPush = Array.prototype.push
  const arrayPop = Array.prototype.pop
  const arrayJoin = Array.prototype.join
  const stringSplit = String.prototype.split
  const stringIncludes = String.prototype.includes
  const INDEX = /^(?:0|[1-9][0-9]*)$/
  const regexpTest = RegExp.prototype.test

  /**
   * The JSON text of `root` when it is lossless JSON (SPEC J1.1), else `undefined`. Reads
   * each property once and emits what it read; iterative, so depth cannot overflow the stack.
   * Throws whatever a getter or Proxy trap throws.
   * @param {unknown} root
   */
  function toJson(root) {
    /** @type {string[]} */
    const out = []
    const onPath = new GuestSet()
    /** @type {{ source: any, keys: string[], length: number, index: number, isArray: boolean }[]} */
    const frames = []
    /** @type {any} */
    let value = root
    for (;;) {
      if (value === null) apply(arrayPush, out, ['null'])
      else if (typeof value === 'string') apply(arrayPush, out, [stringify(value)])
      else if (typeof value === 'boolean') apply(arrayPush, out, [value ? 'true' : 'false'])
      else if (typeof value === 'number') {
        if (!isFiniteNumber(value) || is(value, -0)) return undefined
        apply(arrayPush, out, [stringify(value)])
      } else if (typeof value === 'object') {
        if (apply(setHas, onPath, [value])) return undefined
        const proto = getPrototypeOf(value)
        const keys = ownKeys(value)
        /** @type {string[]} */
        const names = []
        let length = 0
        const array = isArray(value)
        if (array) {
          if (proto !== ArrayPrototype) return undefined
          length = value.length
          if (keys.length !== length + 1) return undefined
          for (const key of keys) {
            if (key === 'length') continue
            if (typeof key !== 'string' || !apply(regexpTest, INDEX, [key]) || +key >= length)
              return undefined
          }
        } else {
          if (proto !== ObjectPrototype && proto !== null) return undefined
          for (const key of keys) {
            if (typeof key !== 'string') return undefined
            const descriptor = getOwnPropertyDescriptor(value, key)
            if (descriptor === undefined || !descriptor.enumerable) return undefined
            apply(arrayPush, names, [key])
          }
          length = names.length
        }
        apply(setAdd, onPath, [value])
        apply(arrayPush, out, [array ? '[' : '{'])
        apply(arrayPush, frames, [{ source: value, keys: names, length, index: 0, isArray: array }])
      } else return undefined
      // Find the next value to emit, closing every finished container on the way.
      for (;;) {
        const frame = frames[frames.length - 1]
        if (frame === undefined) return apply(arrayJoin, out, [''])
        if (frame.index < frame.length) {
          if (frame.index > 0) apply(arrayPush, out, [','])
          if (frame.isArray) value = frame.source[frame.index]
          else {
            const key = frame.keys[frame.index]
            apply(arrayPush, out, [`${stringify(key)}:`])
            value = frame.source[/** @type {string} */ (key)]
          }
          frame.index++
          break
        }
        apply(arrayPush, out, [frame.isArray ? ']' : '}'])
        apply(setDelete, onPath, [frame.source])
        apply(arrayPop, frames, [])
      }
    }
  }

  /**
   * The message of a thrown value, as `errorMessage` of @tooltx/core reads it: a string
   * `message`, else the value as text; never throws.
   */
  function thrownMessage(/** @type {unknown} */ thrown) {
    try {
      if (thrown !== null && (typeof thrown === 'object' || typeof thrown === 'function')) {
        const message = /** @type {{ message?: unknown }} */ (thrown).message
        if (typeof message === 'string') return message
      }
      return toText(thrown)
    } catch {
      return '<unprintable thrown value>'
    }
  }

  /** One log argument as text: strings as is, errors as `Name: message`, other values as JSON. */
  function formatArgument(/** @type {unknown} */ value) {
    if (typeof value === 'string') return value
    try {
      if (value instanceof GuestError) return `${value.name}: ${value.message}`
      const json = stringify(value)
      return json === undefined ? toText(value) : json
    } catch {
      try {
        return toText(value)
      } catch {
        return '<unprintable value>'
      }
    }
  }

  /** A thrown value as a message: `Name: message` plus the program's stack frames. */
  function describeThrown(/** @type {any} */ thrown) {
    try {
      if (thrown !== null && typeof thrown === 'object' && typeof thrown.message === 'string') {
        const name = typeof thrown.name === 'string' ? thrown.name : 'Error'
        let text = `${name}: ${thrown.message}`
        const stack = thrown.stack
        if (typeof stack === 'string') {
          for (const line of apply(stringSplit, stack, ['\n'])) {
            if (apply(stringIncludes, line, ['program.ts'])) text += `\n${line}`
          }
        }
        return text
      }
      return `Uncaught ${formatArgument(thrown)}`
    } catch {
      return 'Uncaught <unprintable thrown value>'
    }
  }

  class ToolCallError extends GuestError {
    /**
     * @param {string} message
     * @param {string | undefined} toolName
     * @param {string | undefined} code
     */
    constructor(message, toolName, code) {
      super(message)
      this.name = 'ToolCallError'
      if (toolName !== undefined) this.toolName = toolName
      if (code !== undefined) this.code = code
    }
  }

  /** The guest error for a rejected binding call, rebuilt from its JSON description. */
  function rejection(
    /** @type {{ name: string, message: string, toolName?: string, code?: string }} */ info,
  ) {
    if (info.name === 'ToolCallError') return new ToolCallError(info.message, info.toolName, info.code)
    const error = /** @type {Error & { toolName?: string, code?: string }} */ (new GuestError(info.message))
    if (info.name !== 'Error') error.name = info.name
    if (info.toolName !== undefined) error.toolName = info.toolName
    if (info.code !== undefined) error.code = info.code
    return error
  }

  /** @type {Record<string, { resolve: (v: unknown) => void, reject: (e: unknown) => void }>} */
  const pending = create(null)

  /** Defines the global `tools` with one async function per binding name. */
  function installTools(/** @type {string} */ namesJson) {
    const tools = create(null)
    for (const name of parse(namesJson))
      defineProperty(tools, name, { value: binding(name), enumerable: true })
    freeze(tools)
    defineProperty(global, 'tools', { value: tools, writable: true, configurable: true })
  }

  /** The binding function for `name`: copy the arguments out as JSON text, then wait for the host. */
  function binding(/** @type {string} */ name) {
    return {
      async [name](/** @type {unknown} */ args) {
        const advice =
          "call the tool with one arguments object of plain JSON values, as in tools.<name>({ key: 'value' })"
        let text
        try {
          text = toJson(args)
        } catch (thrown) {
          // The same text as `toolArgsUnreadable` of @tooltx/core (X4.6).
          throw new GuestTypeError(`reading the tool arguments failed: ${thrownMessage(thrown)}; ${advice}`)
        }
        // The same text as `TOOL_ARGS_NOT_LOSSLESS` of @tooltx/core (X3.2).
        if (text === undefined) throw new GuestTypeError(`tool arguments must be lossless JSON; ${advice}`)
        const id = hostCall(name, text)
        if (id < 0) throw new GuestError(`run is over; ${name} not dispatched`)
        return new GuestPromise((resolve, reject) => {
          pending[id] = { resolve, reject }
        })
      },
    }[name]
  }

  const log = (/** @type {unknown[]} */ ...values) => {
    let line = ''
    for (let i = 0; i < values.length; i++) line += (i > 0 ? ' ' : '') + formatArgument(values[i])
    hostLog(stringify(line))
  }
  const console = freeze({ log, info: log, warn: log, error: log, debug: log })
  defineProperty(global, 'console', { value: console, writable: true, configurable: true })
  defineProperty(global, 'ToolCallError', { value: ToolCallError, writable: true, configurable: true })

  /**
   * True when `thrown` looks like the engine running out of memory: `null` (thrown when it
   * cannot even allocate its error) or `InternalError: out of memory`. The worker decides
   * whether it really did, so a look-alike cannot forge the kind.
   * @param {unknown} thrown
   */
  function looksOutOfMemory(thrown) {
    if (thrown === null) return true
    try {
      return (
        GuestInternalError !== undefined &&
        thrown instanceof GuestInternalError &&
        /** @type {Error} */ (thrown).message === 'out of memory'
      )
    } catch {
      return false
    }
  }

  /** @param {unknown} value */
  function complete(value) {
    if (value === undefined) return hostDone(3, '')
    let text
    try {
      text = toJson(value)
    } catch (thrown) {
      // Running out of memory while copying the value out is not the value's fault.
      if (looksOutOfMemory(thrown)) return hostDone(5, '')
      text = undefined
    }
    if (text === undefined) hostDone(2, '')
    else hostDone(1, text)
  }

  /** @param {unknown} thrown */
  function fail(thrown) {
    let text = '"Uncaught <unprintable thrown value>"'
    try {
      text = stringify(describeThrown(thrown))
    } catch {}
    hostDone(looksOutOfMemory(thrown) ? 4 : 0, text)
  }

  /** @param {unknown} program */
  function start(program) {
    if (typeof program !== 'function')
      return hostDone(0, '"SyntaxError: the program must be a function body"')
    let promise
    try {
      promise = program()
    } catch (thrown) {
      return fail(thrown)
    }
    apply(promiseThen, apply(promiseResolve, GuestPromise, [promise]), [complete, fail])
  }

  /**
   * @param {unknown} id
   * @param {unknown} ok
   * @param {unknown} text
   */
  function settle(id, ok, text) {
    const key = /** @type {number} */ (id)
    const entry = pending[key]
    if (entry === undefined) return
    delete pending[key]
    const data = parse(/** @type {string} */ (text))
    if (ok) entry.resolve(data)
    else entry.reject(rejection(data))
  }

  return (op, a, b, c) => {
    if (op === 0) start(a)
    else if (op === 1) settle(a, b, c)
    else installTools(/** @type {string} */ (a))
  }
}
