import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { fileStore, memoryStore, sqliteStore } from '../src/index.js'
import { storeConformance } from './store-conformance.js'

const root = mkdtempSync(join(tmpdir(), 'tooltx-stores-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
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

storeConformance('sqliteStore', () => {
  const path = join(fresh(), 'nested', 'sessions.db')
  return { connect: () => sqliteStore(path) }
})
