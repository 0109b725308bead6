/**
 * A tool body's own forms (P8.13–P8.19): what `run.elicit(form)` asks, what the host's
 * elicitation handler is given, and what the body gets back. The shapes are MCP's form-mode
 * elicitation (2025-11-25), so an MCP host passes them through as they are.
 */

/** A free text field; `format` restricts it to an e-mail address, a URI, a date or a date-time. */
export interface FormTextField {
  type: 'string'
  title?: string
  description?: string
  minLength?: number
  maxLength?: number
  format?: 'email' | 'uri' | 'date' | 'date-time'
  default?: string
}

/** A choice of one string: `enum` (optionally with `enumNames`), or `oneOf` titled constants. */
export interface FormChoiceField {
  type: 'string'
  title?: string
  description?: string
  enum?: string[]
  /** Display names of `enum`'s values, in their order (MCP's legacy titled enum). */
  enumNames?: string[]
  oneOf?: { const: string; title: string }[]
  default?: string
}

/** A number; `integer` admits whole numbers only. */
export interface FormNumberField {
  type: 'number' | 'integer'
  title?: string
  description?: string
  minimum?: number
  maximum?: number
  default?: number
}

/** A yes or no. */
export interface FormBooleanField {
  type: 'boolean'
  title?: string
  description?: string
  default?: boolean
}

/** A choice of several strings: `items.enum`, or `items.anyOf` titled constants. */
export interface FormMultiChoiceField {
  type: 'array'
  title?: string
  description?: string
  minItems?: number
  maxItems?: number
  items: { type: 'string'; enum: string[] } | { anyOf: { const: string; title: string }[] }
  default?: string[]
}

/** One field of a form: a primitive value, never a nested object (MCP form elicitation). */
export type FormField =
  | FormTextField
  | FormChoiceField
  | FormNumberField
  | FormBooleanField
  | FormMultiChoiceField

/** The schema of a form: a flat object of primitive fields, some of them required. */
export interface FormSchema {
  type: 'object'
  properties: Record<string, FormField>
  required?: string[]
}

/** A form a body asks the person to fill (P8.13). */
export interface ElicitForm {
  /** What the person is asked, shown above the fields. */
  message: string
  requestedSchema: FormSchema
}

/** The values of an accepted form, by field name. */
export type FormContent = Record<string, string | number | boolean | string[]>

/**
 * The person's answer (P8.14): `accept` with the form's values (checked against its schema),
 * `decline`, or `cancel`, which is also the answer when nobody could be asked or answered; a
 * `cancel` the runtime made says why in `reason`.
 */
export type ElicitReply =
  | { readonly action: 'accept'; readonly content: Readonly<FormContent> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel'; readonly reason?: string }

/** What a host's elicitation handler is asked (P8.15): the call, the checked form, its signal. */
export interface ElicitRequest {
  readonly callId: string
  readonly rootCallId: string
  /** The tool whose body asks. */
  readonly name: string
  readonly message: string
  readonly requestedSchema: Readonly<FormSchema>
  /** The attempt's signal: aborted when the call is, and then the question is moot. */
  readonly signal: AbortSignal
}

/**
 * A host's answer to a body's form (P8.15): the MCP server asks the call's client, an agent asks
 * its person, the CLI asks at the terminal. May resolve `{ action: 'cancel', reason }`.
 */
export type Elicitor = (request: ElicitRequest) => ElicitReply | Promise<ElicitReply>
