// The version check comes first, so an older Node.js fails before `ai` is loaded (Z2.8).
import './node-version.js'

export * from './language-model.js'
export * from './tools.js'
