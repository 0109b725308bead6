import { parseArgs } from 'node:util'
import { UsageError } from '../display/output.js'

/**
 * A command's flags by kind: `strings` take a value, `repeatable` take a value and may be given
 * more than once, `booleans` are switches. Every command also takes `-h`/`--help`.
 */
export interface FlagSpec {
  readonly strings?: readonly string[]
  readonly repeatable?: readonly string[]
  readonly booleans?: readonly string[]
}

type Names<L> = L extends readonly (infer N extends string)[] ? N : never

/** The `parseArgs` options of a `FlagSpec`. */
export type FlagOptions<S extends FlagSpec> = { [K in Names<S['strings']>]: { type: 'string' } } & {
  [K in Names<S['repeatable']>]: { type: 'string'; multiple: true }
} & { [K in Names<S['booleans']>]: { type: 'boolean' } } & { help: { type: 'boolean'; short: 'h' } }

/** The `parseArgs` options for `spec`, `--help` included. */
export function flagOptions<const S extends FlagSpec>(spec: S): FlagOptions<S> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: true; short?: 'h' }> = {}
  for (const name of spec.strings ?? []) options[name] = { type: 'string' }
  for (const name of spec.repeatable ?? []) options[name] = { type: 'string', multiple: true }
  for (const name of spec.booleans ?? []) options[name] = { type: 'boolean' }
  options.help = { type: 'boolean', short: 'h' }
  return options as FlagOptions<S>
}

/** What `parseArgs` returns for the flags of `spec` and any positionals. */
export type ParsedFlags<S extends FlagSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: FlagOptions<S> }>
>

/** Parses `args` with the flags of `spec`; a parse error is a usage error followed by `help`. */
export function parseFlags<const S extends FlagSpec>(
  args: string[],
  spec: S,
  help: string | undefined,
): ParsedFlags<S> {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options: flagOptions(spec) })
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${help}`, 2)
  }
}
