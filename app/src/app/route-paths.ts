import type { RouteObject } from 'react-router'

/**
 * Every path pattern the route table shows a screen for, as one list
 * (`/category/:slug`, `/dashboard/templates/edit/:templateId`): nested paths
 * joined, index routes as their parent's path, catch-alls (`*`, the
 * not-found screen) left out. The build ships it as `routes.json`, so the
 * server answers any other path 404 (with the app, which shows its
 * not-found screen). `public/routes.json` is checked against it by
 * route-paths.test.ts (UPDATE_ROUTES_JSON=1 rewrites it).
 */
export function routePaths(routes: RouteObject[], parent = ''): string[] {
  const paths: string[] = []
  for (const route of routes) {
    if (route.path === '*') continue
    const path = route.path === undefined ? parent : join(parent, route.path)
    if (route.index || (route.element !== undefined && route.path !== undefined)) paths.push(path || '/')
    if (route.children) paths.push(...routePaths(route.children, path))
  }
  return [...new Set(paths)]
}

function join(parent: string, path: string): string {
  if (path.startsWith('/')) return path
  return `${parent.replace(/\/$/, '')}/${path}`
}
