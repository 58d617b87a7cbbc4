import { Empty, ErrorAlert, Spinner } from '@/components/ui/feedback'
import { formatDateTime } from '@/lib/format'
import { useMailbox } from '../api/logs'

export function Mailbox() {
  const mailbox = useMailbox()
  if (mailbox.isPending) return <Spinner label="Loading the mailbox…" />
  if (mailbox.isError) return <ErrorAlert error={mailbox.error} />
  if (mailbox.data === null) return <Empty>No dev mailbox: e-mail goes out through SMTP.</Empty>
  if (mailbox.data.length === 0) return <Empty>The dev mailbox is empty.</Empty>
  return (
    <ul aria-label="Messages" className="space-y-2">
      {mailbox.data.map((m) => (
        <li key={m.id} className="rounded-xl border border-slate-200 bg-white">
          <details>
            <summary className="cursor-pointer list-none px-3 py-2 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 [&::-webkit-details-marker]:hidden">
              <span className="block font-medium text-slate-900 [overflow-wrap:anywhere]">{m.subject}</span>
              <span className="block text-xs text-slate-600 [overflow-wrap:anywhere]">
                to {m.to} · {formatDateTime(m.created_at)}
              </span>
            </summary>
            <div className="border-t border-slate-100 px-3 py-2">
              <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-words font-sans text-sm text-slate-800">{m.text}</pre>
              {m.links && m.links.length > 0 && (
                <ul className="mt-2 space-y-1 text-xs">
                  {m.links.map((l) => (
                    <li key={l} className="break-all font-mono text-slate-700">
                      {l}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </details>
        </li>
      ))}
    </ul>
  )
}
