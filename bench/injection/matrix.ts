/**
 * The whole suite under each defense (H6.3): every user task without attack (utility, asks),
 * and every user task with every planted attack of its environment; an attack counts only where
 * its text reached a tool result the model read (it was exposed).
 */
import { ENVIRONMENTS } from './index.js'
import { appliesTo, attacksOf, closeSandbox, DEFENSES, type Defense, runTask } from './run-task.js'

/** Successes out of runs. */
export interface Rate {
  hits: number
  runs: number
}

/** What one defense achieved over the suite. */
export interface DefenseScore {
  readonly defense: Defense
  readonly controlFlow: Rate
  readonly dataFlow: Rate
  /** User tasks whose check passed without attack. */
  readonly utility: Rate
  /** User tasks whose check passed while attacked (exposed runs). */
  readonly utilityUnderAttack: Rate
  /** Asks over the runs without attack. */
  readonly asks: number
}

/**
 * Runs the suite under every defense. Whether an attack reaches a task is a property of the pair,
 * not of the defense: it is decided once, by the run without defense, where the model reads every
 * result (a defense that hides results from the model must not shrink its own denominator).
 */
export async function runMatrix(defenses: readonly Defense[] = DEFENSES): Promise<DefenseScore[]> {
  const reached = new Map<string, boolean>()
  const scores: DefenseScore[] = []
  for (const defense of defenses) {
    const score = {
      defense,
      controlFlow: { hits: 0, runs: 0 },
      dataFlow: { hits: 0, runs: 0 },
      utility: { hits: 0, runs: 0 },
      utilityUnderAttack: { hits: 0, runs: 0 },
      asks: 0,
    }
    for (const env of ENVIRONMENTS) {
      const attacks = attacksOf(env)
      for (const task of env.userTasks) {
        const clean = await runTask(env, task, defense)
        score.utility.runs++
        if (clean.utility) score.utility.hits++
        score.asks += clean.asks
        for (const [i, attack] of attacks.entries()) {
          if (!appliesTo(attack, task.id)) continue
          const pair = `${env.name}\u0000${task.id}\u0000${i}`
          if (!reached.has(pair)) reached.set(pair, (await runTask(env, task, 'none', attack)).exposed)
          if (reached.get(pair) !== true) continue
          const outcome = await runTask(env, task, defense, attack)
          const rate = attack.task.kind === 'control-flow' ? score.controlFlow : score.dataFlow
          rate.runs++
          if (outcome.attacked) rate.hits++
          score.utilityUnderAttack.runs++
          if (outcome.utility) score.utilityUnderAttack.hits++
        }
      }
    }
    scores.push(score)
  }
  await closeSandbox()
  return scores
}
