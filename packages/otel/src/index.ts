export * from './instrument.js'
