export * from './limits.js'
export * from './quickjs-runtime.js'
