// The card forms' submit button: 'Pay & Download', 'Processing...' while busy.
import { Loader2 } from 'lucide-react'
import { Button } from '@/components/ui/button'

export function PayButton({ busy, disabled = false }: { busy: boolean; disabled?: boolean }) {
  return (
    <Button type="submit" size="lg" className="w-full" disabled={busy || disabled} aria-busy={busy}>
      {busy ? (
        <>
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Processing...
        </>
      ) : (
        'Pay & Download'
      )}
    </Button>
  )
}
