// The locked crypto payouts teaser (spec section 2, Settings): a Premium
// feature shown but not usable; every control is disabled.
import { Lock } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Input, Label, Select } from '@/components/ui/field'
import { CRYPTO_CURRENCIES, CRYPTO_SCHEDULES, CRYPTO_WALLETS } from '../constants'
import { Card } from '@/components/ui/card'

export function CryptoPaymentsTeaser() {
  return (
    <Card
      title={<><Lock className="h-5 w-5 text-slate-500" aria-hidden /> Crypto Payments</>}
      description="Receive your earnings in cryptocurrency, paid out on your schedule. Available with Premium."
      action={<Badge tone="dark">Premium</Badge>}
      className="bg-slate-50"
    >
      <fieldset disabled aria-describedby="crypto-locked" className="space-y-4 opacity-70">
        <legend className="sr-only">Crypto payout settings (locked)</legend>
        <div>
          <p className="mb-1.5 text-sm font-medium text-slate-800">Wallet</p>
          <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
            {CRYPTO_WALLETS.map((wallet) => (
              <label key={wallet} className="flex items-center gap-2 rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm text-slate-700">
                <input type="radio" name="crypto-wallet" value={wallet} className="h-4 w-4" />
                {wallet}
              </label>
            ))}
          </div>
        </div>
        <div className="grid gap-4 sm:grid-cols-3">
          <div>
            <Label htmlFor="crypto-currency">Currency</Label>
            <Select id="crypto-currency" defaultValue={CRYPTO_CURRENCIES[0]}>
              {CRYPTO_CURRENCIES.map((c) => <option key={c} value={c}>{c}</option>)}
            </Select>
          </div>
          <div>
            <Label htmlFor="crypto-schedule">Payout schedule</Label>
            <Select id="crypto-schedule" defaultValue={CRYPTO_SCHEDULES[1]}>
              {CRYPTO_SCHEDULES.map((s) => <option key={s} value={s}>{s}</option>)}
            </Select>
          </div>
          <div>
            <Label htmlFor="crypto-address">Wallet address</Label>
            <Input id="crypto-address" placeholder="0x..." />
          </div>
        </div>
      </fieldset>
      <p id="crypto-locked" className="mt-3 text-sm text-slate-600">Upgrade to Premium to unlock crypto payouts.</p>
    </Card>
  )
}
