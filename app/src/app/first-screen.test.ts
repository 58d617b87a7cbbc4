import { describe, expect, it } from 'vitest'
import { matchRoutes } from 'react-router'
import { routes } from './routes'
import { preloadFirstScreen } from './first-screen'

describe('preloadFirstScreen', () => {
  it('starts the public screens people land on, the ones the route table shows there', () => {
    const cases: Array<[string, string, string]> = [
      ['/', 'home', '/'],
      ['/template/e0000000-0000-4000-8000-000000000001', 'template', '/template/:id'],
      ['/discover', 'discover', '/discover'],
      ['/category/productivity', 'category', '/category/:slug'],
      ['/profile/mayachen', 'profile', '/profile/:usernameOrId'],
    ]
    for (const [path, screen, route] of cases) {
      expect(preloadFirstScreen(path)).toBe(screen)
      expect(matchRoutes(routes, path)?.at(-1)?.route.path).toBe(route)
    }
  })

  it('leaves the others to the router', () => {
    for (const path of ['/dashboard', '/dashboard/templates', '/auth', '/template/a/b', '/checkout', '/nowhere']) {
      expect(preloadFirstScreen(path)).toBeNull()
    }
  })
})
