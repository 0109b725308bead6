/** The four environments of the injection suite (H6.1). */
import { banking } from './banking.js'
import { messaging } from './messaging.js'
import type { AnyEnvironment } from './suite.js'
import { travel } from './travel.js'
import { workspace } from './workspace.js'

export const ENVIRONMENTS: readonly AnyEnvironment[] = [banking, workspace, messaging, travel]
