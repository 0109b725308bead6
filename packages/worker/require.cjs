// The require() entry. A Node that can require() ES modules (20.19+, 22.12+) loads the ES module
// itself (the same instance `import` gives); an older Node is told how to load it.
const { name } = require('./package.json')
if (process.features.require_module) module.exports = require('./dist/index.js')
else
  throw new Error(
    `${name} is ESM-only: use \`import … from '${name}'\`, or \`await import('${name}')\` in CommonJS`,
  )
