export * from './cli.js'
export * from './output.js'
export * from './timeline.js'
export * from './toolset.js'
