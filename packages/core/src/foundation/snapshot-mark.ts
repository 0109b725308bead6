/**
 * The mark on deep-frozen lossless JSON the runtime built: the roots `snapshotJson(v, { freeze:
 * true })` and `parseFrozenJson` return, and the containers `vouchFreeze` freezes around checked
 * parts. A private field stamped on the object before it is frozen (see target-stamp.ts for why
 * not a `WeakSet`); it is invisible to keys, descriptors, Proxies, JSON and `structuredClone`,
 * so a marked tree stays plain lossless JSON (J1.1, J1.8).
 */
import { TargetStamp } from './target-stamp.js'

export class SnapshotMark extends TargetStamp {
  readonly #frozenSnapshot = true

  static has(value: object): boolean {
    return #frozenSnapshot in value
  }
}
