// A checklist of fixed options, stored as the list of checked labels. Items
// stored earlier that are not among the options (e.g. written on the edit
// screen, one per line) stay listed and checked, so nothing is lost on save.
export function Checklist({
  legend,
  options,
  value,
  onChange,
}: {
  legend: string
  options: readonly string[]
  value: string[]
  onChange: (value: string[]) => void
}) {
  const extra = value.filter((v) => !options.includes(v))
  const all = [...options, ...extra]
  const toggle = (item: string, checked: boolean) => {
    if (checked) onChange(all.filter((o) => o === item || value.includes(o)))
    else onChange(value.filter((v) => v !== item))
  }
  return (
    <fieldset>
      <legend className="mb-3 text-sm font-semibold text-slate-900">{legend}</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        {all.map((item) => (
          <label key={item} className="flex cursor-pointer items-start gap-2 rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm text-slate-800 hover:bg-slate-50">
            <input
              type="checkbox"
              className="mt-0.5 h-4 w-4 rounded border-slate-300 accent-brand-600"
              checked={value.includes(item)}
              onChange={(e) => toggle(item, e.target.checked)}
            />
            <span>{item}</span>
          </label>
        ))}
      </div>
      <p className="mt-2 text-xs text-slate-600">{value.length} selected</p>
    </fieldset>
  )
}
