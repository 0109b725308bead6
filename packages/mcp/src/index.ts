export type { ReconnectOptions } from './backoff.js'
export { type ElicitForm, type ElicitReply, elicit } from './body-elicit.js'
export { type SampleRequest, sample } from './body-sample.js'
export { boundHostNames, isLoopbackHost } from './bound-host.js'
export { RESULT_META_KEY, type ResultMeta } from './call-result.js'
export { closeCallStream } from './call-stream.js'
export type {
  ClientCapabilityOptions,
  ElicitAnswer,
  ElicitHandler,
  ElicitQuestion,
  SampleAnswer,
  SampleHandler,
  SampleQuestion,
  ServerLogEntry,
} from './client-capabilities.js'
export type { HttpConnection, McpConnection, StdioConnection } from './client-connection.js'
export { CONNECTION_CLOSED } from './client-link.js'
export { fromMcpContent, toMcpContent } from './content-blocks.js'
export {
  DEFAULT_MAX_EVENTS,
  DEFAULT_MAX_EVENTS_PER_STREAM,
  type MemoryEventStore,
  type MemoryEventStoreOptions,
  memoryEventStore,
} from './event-store.js'
export { DEFAULT_RETRY_INTERVAL_MS, type HttpEndpoint, type ServeHttpOptions, serveHttp } from './http.js'
export type { ImportedValue } from './imported-tool.js'
export { type McpToolSet, type McpToolsOptions, mcpTools, type SkippedTool } from './mcp-tools.js'
export { REMOTE_ERROR } from './remote-failure.js'
export { type CallWrapper, type McpServerOptions, mcpServer, type TooltxMcpServer } from './server.js'
export { serveStdio } from './stdio.js'
export { type AnnotationRule, defaultAnnotations } from './tool-listing.js'
export { importedName } from './tool-names.js'
