import { join } from 'node:path'
import { it } from 'vitest'
import { fileStore, memoryStore, postgresStore, sqliteStore } from '../src/index.js'
import { describePostgres, freshPostgres, PG_URL } from './postgres.js'
import { SQLITE_DRIVERS } from './sqlite-drivers.js'
import { storeConformance } from './store-conformance.js'
import { tempRoot } from './temp-root.js'

const root = tempRoot('tooltx-stores-')
let n = 0
const fresh = (): string => join(root, `b${n++}`)

storeConformance('memoryStore', () => {
  const store = memoryStore()
  return { connect: () => store }
})

storeConformance('fileStore', () => {
  const dir = fresh()
  return { connect: () => fileStore(dir) }
})

// The default driver runs under the plain name; the other one, where it loads, under its own.
for (const { driver, problem, isDefault } of SQLITE_DRIVERS) {
  if (problem !== undefined) {
    it.skip(`L11.6: sqliteStore with driver ${driver} is not tested here: ${problem}`, () => {})
    continue
  }
  storeConformance(isDefault ? 'sqliteStore' : `sqliteStore (${driver})`, () => {
    const path = join(fresh(), 'nested', 'sessions.db')
    return { connect: () => sqliteStore(path, { driver }) }
  })
}

// Connection strings of fresh schemas, made before the suite runs (a backing is made synchronously).
const places = PG_URL === undefined ? [] : await Promise.all(Array.from({ length: 12 }, freshPostgres))
describePostgres('N1.1: postgresStore', () => {
  storeConformance('postgresStore', () => {
    const place = places.shift()!
    return { connect: () => postgresStore(place) }
  })
})
