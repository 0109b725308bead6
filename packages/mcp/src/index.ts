export { RESULT_META_KEY, type ResultMeta } from './call-result.js'
export type {
  AuthorizationCodeAuth,
  ClientCredentialsAuth,
  JwtBearerAuth,
  McpAuth,
} from './client/auth/mcp-auth.js'
export type { JwtGrantSource } from './client/auth/stored-provider.js'
export {
  defaultTokenFile,
  fileTokenStore,
  type KeptTokens,
  memoryTokenStore,
  type ServerAuthRecord,
  type TokenStore,
} from './client/auth/token-store.js'
export type { ReconnectOptions } from './client/backoff.js'
export type {
  ClientCapabilityOptions,
  ElicitAnswer,
  ElicitHandler,
  ElicitQuestion,
  SampleAnswer,
  SampleHandler,
  SampleQuestion,
  ServerLogEntry,
} from './client/client-capabilities.js'
export type { HttpConnection, McpConnection, StdioConnection } from './client/client-connection.js'
export { CONNECTION_CLOSED } from './client/client-link.js'
export type { ImportedValue } from './client/imported-tool.js'
export { type McpToolSet, type McpToolsOptions, mcpTools, type SkippedTool } from './client/mcp-tools.js'
export { REMOTE_ERROR } from './client/remote-failure.js'
export { MAX_POLL_MS, MIN_POLL_MS, type TaskReceipt } from './client/task-call.js'
export { importedName } from './client/tool-names.js'
export { fromMcpContent, toMcpContent } from './content-blocks.js'
export { type ElicitForm, type ElicitReply, elicit } from './server/body-elicit.js'
export { type SampleRequest, sample } from './server/body-sample.js'
export { boundHostNames, isLoopbackHost } from './server/bound-host.js'
export { closeCallStream } from './server/call-stream.js'
export {
  DEFAULT_MAX_EVENTS,
  DEFAULT_MAX_EVENTS_PER_STREAM,
  type MemoryEventStore,
  type MemoryEventStoreOptions,
  memoryEventStore,
} from './server/event-store.js'
export {
  DEFAULT_RETRY_INTERVAL_MS,
  type HttpEndpoint,
  type ServeHttpOptions,
  serveHttp,
} from './server/http.js'
export { type CallWrapper, type McpServerOptions, mcpServer, type TooltxMcpServer } from './server/server.js'
export { serveStdio } from './server/stdio.js'
export {
  type PostgresTaskStoreOptions,
  postgresTaskStore,
  type TaskPool,
} from './server/tasks/postgres-task-store.js'
export {
  type McpTask,
  RELATED_TASK_KEY,
  type ServeTasksOptions,
} from './server/tasks/served-tasks.js'
export { type AnnotationRule, defaultAnnotations } from './server/tool-listing.js'
export {
  isTerminal,
  memoryTaskStore,
  type TaskChange,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './task-store.js'
