import { useState, type FormEvent } from 'react'
import { Plus, X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Input, Label, Select } from '@/components/ui/field'
import type { Column } from '@/lib/schema'
import { isOperator, OPERATOR_LABELS, OPERATORS, toPostgrest, type Filter, type Operator } from '../lib/filters'

export function FilterBar({ columns, filters, onChange }: { columns: Column[]; filters: Filter[]; onChange: (filters: Filter[]) => void }) {
  const [column, setColumn] = useState(columns[0]?.name ?? '')
  const [op, setOp] = useState<Operator>('eq')
  const [value, setValue] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const chosen = columns.some((c) => c.name === column) ? column : (columns[0]?.name ?? '')

  const add = (e: FormEvent) => {
    e.preventDefault()
    const f = { column: chosen, op, value }
    try {
      toPostgrest(f)
    } catch (error) {
      setProblem((error as Error).message)
      return
    }
    setProblem(null)
    setValue('')
    onChange([...filters, f])
  }

  return (
    <div className="mb-3">
      <form onSubmit={add} className="grid gap-2 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_minmax(0,1.5fr)_auto] sm:items-end" aria-label="Add a filter">
        <div>
          <Label htmlFor="filter-column">Column</Label>
          <Select id="filter-column" value={chosen} onChange={(e) => setColumn(e.target.value)}>
            {columns.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <Label htmlFor="filter-op">Operator</Label>
          <Select id="filter-op" value={op} onChange={(e) => isOperator(e.target.value) && setOp(e.target.value)}>
            {OPERATORS.map((o) => (
              <option key={o} value={o}>
                {OPERATOR_LABELS[o]}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <Label htmlFor="filter-value">Value</Label>
          <Input id="filter-value" value={value} onChange={(e) => setValue(e.target.value)} aria-invalid={problem ? true : undefined} />
        </div>
        <Button type="submit" variant="outline" disabled={!chosen}>
          <Plus className="h-4 w-4" aria-hidden /> Add filter
        </Button>
      </form>
      {problem && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {problem}
        </p>
      )}
      {filters.length > 0 && (
        <ul aria-label="Filters" className="mt-2 flex flex-wrap gap-2">
          {filters.map((f, i) => (
            <li key={`${i}-${f.column}`} className="inline-flex max-w-full items-center gap-1 rounded-full bg-brand-50 py-0.5 pl-3 pr-1 text-xs text-brand-800 ring-1 ring-brand-200">
              <span className="truncate font-mono">
                {f.column} {f.op} {f.value}
              </span>
              <button
                type="button"
                className="rounded-full p-1 hover:bg-brand-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
                aria-label={`Remove filter ${f.column} ${f.op} ${f.value}`}
                onClick={() => onChange(filters.filter((_, j) => j !== i))}
              >
                <X className="h-3 w-3" aria-hidden />
              </button>
            </li>
          ))}
          {filters.length > 1 && (
            <li>
              <Button variant="ghost" size="sm" onClick={() => onChange([])}>
                Clear filters
              </Button>
            </li>
          )}
        </ul>
      )}
    </div>
  )
}
