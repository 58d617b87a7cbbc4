// What the browser walks share: waits that poll (with the walks' timeout),
// sign-in and sign-out through the real UI, and another visitor that acts
// through the HTTP API, outside the browser.
export const TIMEOUT = 15_000

export function expect(condition, message) {
  if (!condition) throw new Error(message)
}

export async function waitForCount(locator, n, what) {
  const until = Date.now() + TIMEOUT
  let count = -1
  while (Date.now() < until) {
    count = await locator.count()
    if (count === n) return
    await new Promise((ok) => setTimeout(ok, 100))
  }
  throw new Error(`expected ${n} ${what}, saw ${count}`)
}

export async function logout(page, viewport) {
  if (viewport === 'phone') {
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Logout' }).click()
    await page.getByRole('button', { name: 'Open menu' }).click()
    const drawer = page.getByRole('dialog', { name: 'Menu' })
    await drawer.getByRole('link', { name: 'Sign In' }).waitFor()
    await drawer.getByRole('button', { name: 'Close menu' }).click()
  } else {
    await page.getByRole('button', { name: 'Account menu' }).click()
    await page.getByRole('menuitem', { name: 'Logout' }).click()
    await page.getByRole('banner').getByRole('link', { name: 'Sign In' }).waitFor()
  }
}

export async function waitForText(locator, text, what) {
  const until = Date.now() + TIMEOUT
  let seen = null
  while (Date.now() < until) {
    seen = (await locator.textContent())?.trim()
    if (seen === text) return
    await new Promise((ok) => setTimeout(ok, 100))
  }
  throw new Error(`expected ${what} to read ${text}, saw ${seen}`)
}

export async function waitUntil(test, what) {
  const until = Date.now() + TIMEOUT
  while (Date.now() < until) {
    if (test()) return
    await new Promise((ok) => setTimeout(ok, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Another visitor, outside the browser: signs up through the API. */
export async function apiVisitor(url, email) {
  const { anonKey } = await (await fetch(`${url}/_/app-config.json`)).json()
  const response = await fetch(`${url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a-long-password-1' }),
  })
  const body = await response.json()
  expect(response.ok && body.access_token, `sign-up through the API: ${response.status} ${JSON.stringify(body)}`)
  const rest = async (method, path, payload) => {
    const r = await fetch(`${url}/rest/v1/${path}`, {
      method,
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${body.access_token}`,
        'content-type': 'application/json',
        prefer: 'return=minimal',
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    })
    expect(r.ok, `${method} /rest/v1/${path}: ${r.status} ${await r.text()}`)
  }
  return { id: body.user.id, rest }
}


/** Signs in through the auth page and waits to leave it. */
export async function signIn(page, url, email, password = 'demo-password', redirect = '/') {
  await page.goto(`${url}/auth?mode=sign-in&redirect=${encodeURIComponent(redirect)}`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await page.waitForURL((u) => u.pathname !== '/auth')
}
