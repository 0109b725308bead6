// A tooltx MCP client for the `auth/*` client scenarios of @modelcontextprotocol/conformance,
// built on `mcpTools(url, { auth })` against the BUILT packages (`npm run build` first).
//   conformance client --command "node packages/mcp/test/conformance/oauth-client.mjs" --suite auth
// The framework appends the server URL and sets MCP_CONFORMANCE_SCENARIO and, for pre-registered
// clients, MCP_CONFORMANCE_CONTEXT ({ client_id, client_secret, …, the IdP's for cross-app access }).
import { requestJwtAuthorizationGrant } from '@modelcontextprotocol/client'
import { createToolRuntime } from '@tooltx/core'
import { mcpTools } from '@tooltx/mcp'

const url = process.argv.at(-1)
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}')
// The scenarios' authorization servers approve at once: following their redirect plays the user.
const browser = async (authorizationUrl) => {
  await (await fetch(authorizationUrl)).text()
}
const preRegistered =
  typeof context.client_id === 'string'
    ? {
        clientId: context.client_id,
        ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
      }
    : {}
const auth =
  scenario === 'auth/cross-app-access-complete-flow'
    ? {
        grant: 'jwt_bearer',
        ...preRegistered,
        // The IdP trades the user's ID token for a grant for this server (RFC 8693).
        assertion: async ({ authorizationServerUrl, resourceUrl, scope }) =>
          (
            await requestJwtAuthorizationGrant({
              tokenEndpoint: context.idp_token_endpoint,
              audience: authorizationServerUrl,
              resource: resourceUrl,
              idToken: context.idp_id_token,
              clientId: context.idp_client_id ?? context.client_id,
              ...(scope === undefined ? {} : { scope }),
            })
          ).jwtAuthGrant,
      }
    : scenario === 'auth/client-credentials-jwt'
      ? {
          grant: 'client_credentials',
          clientId: context.client_id,
          privateKey: context.private_key_pem,
          signingAlgorithm: context.signing_algorithm ?? 'ES256',
        }
      : scenario === 'auth/client-credentials-basic'
        ? { grant: 'client_credentials', ...preRegistered }
        : {
            onAuthorizationUrl: browser,
            clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
            timeoutMs: 10_000,
            ...preRegistered,
          }
const set = await mcpTools({ url, auth }, { name: 'conformance', reconnect: false })
const runtime = createToolRuntime()
set.register(runtime)
for (const def of set.tools) {
  const result = await runtime.execute({
    callId: def.name,
    name: def.name,
    arguments: {},
    signal: AbortSignal.timeout(10_000),
  })
  console.log(`${def.name}: ${result.isError ? result.error.message : 'ok'}`)
}
await set.close()
