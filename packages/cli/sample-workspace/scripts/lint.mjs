// A small lint: flags TODO comments so they are not forgotten.
import { readdirSync, readFileSync } from 'node:fs'

let count = 0
for (const file of readdirSync('src')) {
  const lines = readFileSync(`src/${file}`, 'utf8').split('\n')
  lines.forEach((line, i) => {
    if (line.includes('TODO')) {
      count++
      console.log(`src/${file}:${i + 1}: warning: unresolved TODO`)
    }
  })
}
console.log(`${count} warning(s)`)
