/**
 * The base for private-field marks on objects the runtime builds (`vouchFreeze`, the around
 * view's call, the snapshot roots of lossless-json.ts). A private field stamped before the
 * object is frozen costs a small fraction of a `WeakSet` or `WeakMap` add per fresh object on
 * V8 (ephemeron bookkeeping, paid again by the GC; bench/pipeline.bench.ts, Pipeline hot-path
 * mechanisms), and no reflection, Proxy, JSON or `structuredClone` can see it.
 */
export class TargetStamp {
  /** Returns `target` from `new`, so a subclass's private fields are added to `target` itself. */
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: returning the target is the point.
    return target
  }
}
