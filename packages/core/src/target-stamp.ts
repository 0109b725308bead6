/**
 * The base for private-field marks on objects the runtime builds (`vouchFreeze`, the around
 * view's call). A `WeakSet` or `WeakMap` add costs ~600 ns per fresh object on V8 (ephemeron
 * bookkeeping, paid again by the GC); a private field stamped before the object is frozen
 * costs ~10 ns and no reflection, Proxy, JSON or `structuredClone` can see it
 * (bench/pipeline.bench.ts). lossless-json.ts keeps its own copy of this base, since it must
 * not depend on the runtime.
 */
export class TargetStamp {
  /** Returns `target` from `new`, so a subclass's private fields are added to `target` itself. */
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: returning the target is the point.
    return target
  }
}
