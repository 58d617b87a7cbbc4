import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { ErrorAlert } from '@/components/ui/feedback'
import { Input, Label, Textarea } from '@/components/ui/field'
import type { Relation } from '@/lib/schema'
import { toastError, toastSuccess } from '@/lib/toast'
import { useInsertRow, useUpdateRow, type Row } from '../api/rows'
import { fieldText, insertPayload, isJsonColumn, updatePayload } from '../lib/row'

/** Insert (row null) or edit a row of a table with a primary key; every value is typed as text. */
export function RowDialog({ relation, row, onClose }: { relation: Relation; row: Row | null; onClose: () => void }) {
  const editing = row !== null
  const columns = relation.columns.filter((c) => !c.generated)
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(columns.map((c) => [c.name, editing ? fieldText(row[c.name]) : ''])),
  )
  const [problem, setProblem] = useState<unknown>(null)
  const insert = useInsertRow(relation.schema, relation.name)
  const update = useUpdateRow(relation.schema, relation.name, relation.primary_key)
  const pending = insert.isPending || update.isPending

  const submit = (e: FormEvent) => {
    e.preventDefault()
    setProblem(null)
    const done = () => {
      toastSuccess(editing ? 'Row saved' : 'Row inserted')
      onClose()
    }
    const failed = (error: unknown) => {
      setProblem(error)
      toastError(error, editing ? 'The row was not saved' : 'The row was not inserted')
    }
    try {
      if (editing) {
        const patch = updatePayload(columns, values, row)
        if (Object.keys(patch).length === 0) return onClose()
        update.mutate({ key: row, patch }, { onSuccess: done, onError: failed })
      } else {
        insert.mutate(insertPayload(columns, values), { onSuccess: done, onError: failed })
      }
    } catch (error) {
      setProblem(error)
    }
  }

  return (
    <Dialog
      open
      onOpenChange={(open) => !open && onClose()}
      wide
      title={editing ? `Edit row of ${relation.name}` : `Insert row into ${relation.name}`}
      description={editing ? 'Changed fields are saved; an emptied field becomes NULL.' : 'Empty fields are left out: the default (or NULL) applies.'}
    >
      <form onSubmit={submit} className="space-y-3">
        {columns.map((c) => {
          const id = `row-${c.name}`
          const hint = [c.pretty_type, c.nullable ? 'nullable' : 'not null', c.default ? `default ${c.default}` : null].filter(Boolean).join(' · ')
          const props = {
            id,
            value: values[c.name] ?? '',
            'aria-describedby': `${id}-hint`,
            onChange: (e: { target: { value: string } }) => setValues((v) => ({ ...v, [c.name]: e.target.value })),
          }
          return (
            <div key={c.name}>
              <Label htmlFor={id}>
                {c.name}
                {relation.primary_key.includes(c.name) && <span className="ml-1 text-xs font-normal text-slate-600">(primary key)</span>}
              </Label>
              {isJsonColumn(c) ? <Textarea {...props} rows={3} className="font-mono text-xs" /> : <Input {...props} />}
              <p id={`${id}-hint`} className="mt-0.5 text-xs text-slate-600 [overflow-wrap:anywhere]">
                {hint}
              </p>
            </div>
          )
        })}
        {problem !== null && <ErrorAlert error={problem} />}
        <div className="flex justify-end gap-2 pt-2">
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={pending}>
            {pending ? 'Saving…' : editing ? 'Save row' : 'Insert row'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
