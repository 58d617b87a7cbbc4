// Settings: the configuration (PORT shown, secrets masked), the anon key
// with a copy button, the service_role key revealed on demand, the
// migrations applied.
import { expect, expectNoSidewaysPan, openSection, screenshot, signIn } from '../lib.mjs'

const JWT_SECRET = 'e2e-secret-of-at-least-32-characters-long'

export const walks = [
  {
    name: 'settings',
    async run(page, ctx) {
      await signIn(page, ctx)
      await openSection(page, ctx, 'Settings')
      const config = page.getByRole('region', { name: 'Configuration' })
      await config.getByRole('row', { name: /^PORT / }).waitFor()
      const secret = config.getByRole('row', { name: /^JWT_SECRET/ })
      await secret.getByText('secret, masked').waitFor()
      expect(!(await secret.textContent()).includes(JWT_SECRET), 'JWT_SECRET is masked')
      expect(!(await page.content()).includes(JWT_SECRET), 'the secret is nowhere on the page')

      await page.getByLabel('Filter by name').fill('port')
      await config.getByRole('row', { name: /^PORT / }).waitFor()
      expect((await config.getByRole('row', { name: /^JWT_SECRET/ }).count()) === 0, 'the filter hides other names')
      await page.getByLabel('Filter by name').fill('')

      const anon = (await page.getByTestId('anon-key').textContent()).trim()
      expect(anon.split('.').length === 3, `the anon key is a JWT: ${anon}`)
      await page.getByRole('button', { name: 'Copy anon key' }).click()
      expect((await page.getByRole('textbox', { name: 'anon key' }).inputValue()) === anon, 'the copied anon key')

      await expectNoSidewaysPan(page, 'the settings')
      await screenshot(page, 'settings')

      const masked = (await page.getByTestId('service-key').textContent()).trim()
      expect(masked.split('.').length !== 3 || masked.includes('…') || masked.includes('masked'), `the service key is masked: ${masked}`)
      await page.getByRole('button', { name: 'Reveal' }).click()
      await page.getByRole('button', { name: 'Copy service_role key' }).waitFor()
      const full = (await page.getByTestId('service-key').textContent()).trim()
      expect(full !== masked && full.split('.').length === 3 && !full.includes('…'), `the service key revealed: ${full}`)
      const payload = JSON.parse(Buffer.from(full.split('.')[1], 'base64url').toString())
      expect(payload.role === 'service_role', `the revealed key's role: ${payload.role}`)

      const migrations = page.getByRole('region', { name: 'Migrations' })
      expect((await migrations.getByRole('row').count()) > 2, 'migrations are listed')
      await migrations.getByText('applied').first().waitFor()
      await expectNoSidewaysPan(page, 'the settings with the key revealed')
    },
  },
]
