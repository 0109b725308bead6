#!/usr/bin/env node
import { main } from './cli.js'
import { processOutput } from './display/output.js'

process.exitCode = await main(process.argv.slice(2), processOutput())
