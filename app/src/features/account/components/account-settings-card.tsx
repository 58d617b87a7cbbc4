import { Trash2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'

export function AccountSettingsCard() {
  return (
    <Card title="Account Settings" description="Manage your account.">
      <div className="flex flex-col gap-3 rounded-xl border border-red-200 bg-red-50/50 p-4 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <p className="font-medium text-slate-900">Delete account</p>
          <p className="text-sm text-slate-600">Permanently remove your account and its data.</p>
        </div>
        {/* The spec gives this button no action: it does nothing yet. */}
        <Button variant="danger">
          <Trash2 className="h-4 w-4" aria-hidden /> Delete account
        </Button>
      </div>
    </Card>
  )
}
