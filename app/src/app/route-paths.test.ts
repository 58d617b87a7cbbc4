import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { matchRoutes } from 'react-router'
import { routes } from './routes'
import { routePaths } from './route-paths'

// vitest runs from the app's folder (its root).
const shipped = resolve(process.cwd(), 'public/routes.json')

describe('routePaths', () => {
  it('lists every screen of the route table and no catch-all', () => {
    const paths = routePaths(routes)
    expect(paths).toContain('/')
    expect(paths).toContain('/dashboard')
    expect(paths).toContain('/dashboard/admin')
    expect(paths).toContain('/dashboard/admin/template/:templateId')
    expect(paths).toContain('/category/:slug')
    expect(paths.some((p) => p.includes('*'))).toBe(false)
    // Each pattern, filled in, is a screen of the table, not its not-found.
    for (const path of paths) {
      const sample = path.replace(/:[^/]+/g, 'x')
      expect(matchRoutes(routes, sample)?.at(-1)?.route.path, sample).not.toBe('*')
    }
    for (const path of ['/nowhere', '/dashboard/nowhere', '/discover/more']) {
      expect(matchRoutes(routes, path)?.at(-1)?.route.path, path).toBe('*')
    }
  })

  it('is what the build ships as routes.json', () => {
    const paths = routePaths(routes)
    if (process.env.UPDATE_ROUTES_JSON === '1') writeFileSync(shipped, `${JSON.stringify(paths, null, 2)}\n`)
    expect(JSON.parse(readFileSync(shipped, 'utf8'))).toEqual(paths)
  })
})
