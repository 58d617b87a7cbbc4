// Starts a real plinth for the console's browser walks through app/e2e's
// harness (a fresh database, a free port, a temporary data folder, the demo
// data), with the console on (PLINTH_CONSOLE=true, the built console/dist)
// and an operator made with `plinth admin operator --password-stdin` before
// `serve`. Returns its URL, the operator and a stop function. Needs app/'s
// node modules (npm ci in app/), as scripts/test installs them first.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { startPlinth as startNode } from '../../app/e2e/plinth.mjs'

const consoleDir = resolve(import.meta.dirname, '..')

export const OPERATOR = { email: 'ops@example.test', password: `e2e-${randomBytes(9).toString('base64url')}` }

export async function startPlinth() {
  if (!existsSync(join(consoleDir, 'dist/index.html'))) throw new Error('console/dist is missing: run npm run build first')
  const node = await startNode({
    name: 'console',
    requireApp: false,
    env: { PLINTH_CONSOLE: 'true', PLINTH_CONSOLE_DIR: join(consoleDir, 'dist') },
    beforeServe: ({ binary, env, repo }) => {
      const made = spawnSync(binary, ['admin', 'operator', OPERATOR.email, '--password-stdin'], {
        env,
        cwd: repo,
        input: `${OPERATOR.password}\n`,
        encoding: 'utf8',
      })
      if (made.status !== 0) throw new Error(`plinth admin operator failed:\n${made.stdout}\n${made.stderr}`)
    },
  })
  return { ...node, operator: OPERATOR }
}
