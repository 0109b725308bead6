// A check that takes far longer than its tool's timeout allows.
console.log('checking every historic order…')
setTimeout(() => console.log('done'), 30_000)
