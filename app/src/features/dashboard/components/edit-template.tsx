// Edit template (spec section 2, Dashboard → Edit template): the content of
// one of the user's published templates. Preview images and the status are
// shown read-only in the form; the file and the previews of a published
// template are replaced as a new version with a changelog line (issue 44,
// item 6: ./new-version, below the form).
import { useEffect, useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { ArrowLeft, FileQuestion, ImageIcon } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button, ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { FieldError, Input, Label, Textarea } from '@/components/ui/field'
import { MarkdownEditor } from '@/components/markdown-editor'
import { publicImageUrl } from '@/lib/storage'
import { toastError } from '@/lib/toast'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { useEditableTemplate, type EditableTemplate } from '../api/get-editable-template'
import { useUpdateTemplate, type TemplateEdit } from '../api/update-template'
import { linesToList, listToLines, parsePrice } from '../model'
import { TagInput } from '@/components/tag-input'
import { NewVersion } from './new-version'

/** The most a price may be (numeric(10, 2) in the tables). */
const MAX_PRICE = 99_999_999.99
const BACK = '/dashboard/templates?tab=published'

interface FormState {
  title: string
  description: string
  about: string
  price: string
  tags: string[]
  features: string
  requirements: string
}

type Errors = Partial<Record<'title' | 'price', string>>

export function validate(form: FormState): Errors {
  const errors: Errors = {}
  const title = form.title.trim()
  // The tables hold titles of 3 to 30 characters.
  if (title.length < 3 || title.length > 30) errors.title = 'Title must be between 3 and 30 characters long'
  const price = form.price.trim() === '' ? 0 : Number(form.price)
  if (!Number.isFinite(price) || price < 0) errors.price = 'Price must be a number of 0 or more'
  else if (price > MAX_PRICE) errors.price = 'Price must be less than $100,000,000'
  return errors
}

/** What Save sends (updated_at is added when it is sent). */
export function toEdit(form: FormState): TemplateEdit {
  return {
    title: form.title.trim(),
    description: form.description.trim(),
    about_template: form.about,
    price: parsePrice(form.price),
    tags: form.tags,
    features_included: linesToList(form.features),
    requirements: linesToList(form.requirements),
  }
}

function statusLabel(t: EditableTemplate): string {
  if (t.status === 'published' && t.is_published) return 'Published'
  if (!t.is_published) return 'Not published'
  return t.status.charAt(0).toUpperCase() + t.status.slice(1)
}

function EditForm({ template, userId }: { template: EditableTemplate; userId: string }) {
  const navigate = useNavigate()
  const update = useUpdateTemplate(template.id, userId)
  const [form, setForm] = useState<FormState>(() => ({
    title: template.title ?? '',
    description: template.description ?? '',
    about: template.about_template ?? '',
    price: String(Number(template.price ?? 0) || 0),
    tags: template.tags ?? [],
    features: listToLines(template.features_included),
    requirements: listToLines(template.requirements),
  }))
  const [errors, setErrors] = useState<Errors>({})
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value }))

  const images = [...new Set([template.preview_image_url, ...(template.preview_images ?? [])].filter((u): u is string => !!u))]

  function onSubmit(e: FormEvent) {
    e.preventDefault()
    const found = validate(form)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    update.mutate(toEdit(form), { onSuccess: () => navigate(BACK) })
  }

  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]">
      <div className="space-y-5 rounded-2xl border border-slate-200 bg-white p-4 sm:p-6">
        <div>
          <Label htmlFor="edit-title">Title</Label>
          <Input
            id="edit-title"
            value={form.title}
            onChange={(e) => set('title', e.target.value)}
            maxLength={30}
            required
            aria-invalid={!!errors.title}
            aria-describedby={errors.title ? 'edit-title-error' : 'edit-title-hint'}
          />
          {errors.title ? (
            <FieldError id="edit-title-error">{errors.title}</FieldError>
          ) : (
            <p id="edit-title-hint" className="mt-1 text-xs text-slate-600">
              Title must be between 3 and 30 characters long
            </p>
          )}
        </div>
        <div>
          <Label htmlFor="edit-description">Short description</Label>
          <Textarea id="edit-description" rows={3} value={form.description} onChange={(e) => set('description', e.target.value)} />
        </div>
        <MarkdownEditor
          id="edit-about"
          label="About this template"
          variant="rich"
          value={form.about}
          onChange={(v) => set('about', v)}
          hint="Description must be between 350 and 10000 characters long"
        />
        <div>
          <Label htmlFor="edit-price">Price (USD)</Label>
          <Input
            id="edit-price"
            type="number"
            inputMode="decimal"
            min={0}
            step={0.01}
            value={form.price}
            onChange={(e) => set('price', e.target.value)}
            aria-invalid={!!errors.price}
            aria-describedby={errors.price ? 'edit-price-error' : 'edit-price-hint'}
            className="max-w-48"
          />
          {errors.price ? (
            <FieldError id="edit-price-error">{errors.price}</FieldError>
          ) : (
            <p id="edit-price-hint" className="mt-1 text-xs text-slate-600">
              0 means Free.
            </p>
          )}
        </div>
        <TagInput id="edit-tags" tags={form.tags} onChange={(tags) => set('tags', tags)} />
        <div>
          <Label htmlFor="edit-features">Features included</Label>
          <Textarea
            id="edit-features"
            rows={5}
            value={form.features}
            onChange={(e) => set('features', e.target.value)}
            aria-describedby="edit-features-hint"
          />
          <p id="edit-features-hint" className="mt-1 text-xs text-slate-600">
            One feature per line.
          </p>
        </div>
        <div>
          <Label htmlFor="edit-requirements">Requirements</Label>
          <Textarea
            id="edit-requirements"
            rows={4}
            value={form.requirements}
            onChange={(e) => set('requirements', e.target.value)}
            aria-describedby="edit-requirements-hint"
          />
          <p id="edit-requirements-hint" className="mt-1 text-xs text-slate-600">
            One requirement per line.
          </p>
        </div>
        <div className="flex flex-wrap justify-end gap-2 border-t border-slate-200 pt-5">
          <ButtonLink to={BACK} variant="outline">
            Cancel
          </ButtonLink>
          <Button type="submit" disabled={update.isPending}>
            {update.isPending ? 'Saving...' : 'Save Changes'}
          </Button>
        </div>
      </div>

      <aside className="space-y-6">
        <section aria-labelledby="edit-status-heading" className="rounded-2xl border border-slate-200 bg-white p-4">
          <h2 id="edit-status-heading" className="text-sm font-semibold text-slate-900">
            Current status
          </h2>
          <div className="mt-2">
            <Badge tone={template.is_published ? 'success' : 'neutral'}>{statusLabel(template)}</Badge>
          </div>
          <Link to={`/template/${encodeURIComponent(template.id)}`} className="mt-3 inline-block text-sm font-medium text-brand-700 hover:underline">
            View public page
          </Link>
        </section>
        <section aria-labelledby="edit-previews-heading" className="rounded-2xl border border-slate-200 bg-white p-4">
          <h2 id="edit-previews-heading" className="text-sm font-semibold text-slate-900">
            Preview images
          </h2>
          <p className="mt-1 text-xs text-slate-600">Replace them under Publish an update.</p>
          {images.length === 0 ? (
            <div className="mt-3 flex aspect-[16/10] items-center justify-center rounded-lg bg-slate-100 text-slate-400">
              <ImageIcon className="h-8 w-8" aria-hidden />
              <span className="sr-only">No preview images</span>
            </div>
          ) : (
            <ul className="mt-3 grid grid-cols-2 gap-2 lg:grid-cols-1">
              {images.map((url, i) => (
                <li key={url}>
                  <img
                    src={publicImageUrl(url, TEMPLATES_BUCKET) ?? undefined}
                    alt={`Preview ${i + 1} of ${template.title}`}
                    width={640}
                    height={400}
                    loading="lazy"
                    decoding="async"
                    className="aspect-[16/10] w-full rounded-lg bg-slate-100 object-cover"
                  />
                </li>
              ))}
            </ul>
          )}
        </section>
      </aside>
    </form>
  )
}

export function EditTemplate({ templateId, userId }: { templateId: string; userId: string }) {
  const template = useEditableTemplate(templateId, userId)
  useEffect(() => {
    if (template.isError) toastError('Failed to load template')
  }, [template.isError])

  return (
    <div className="space-y-6">
      <div>
        <Link to={BACK} className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-slate-900">
          <ArrowLeft className="h-4 w-4" aria-hidden /> Back to My Templates
        </Link>
        <h1 className="mt-2 text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Edit Template</h1>
      </div>
      {template.isLoading ? (
        <Spinner label="Loading template..." />
      ) : template.isError && !template.data ? (
        // Not read (the server out of reach) is not "not found" (issue 24).
        <LoadError title="We couldn't load this template" />
      ) : !template.data ? (
        <EmptyState
          icon={<FileQuestion className="h-10 w-10" aria-hidden />}
          title="Template not found"
          description="This template doesn't exist or you don't have permission to edit it."
        />
      ) : (
        <>
          <EditForm key={template.data.id} template={template.data} userId={userId} />
          {template.data.is_published && template.data.status === 'published' && (
            <NewVersion key={`version-${template.data.id}`} template={template.data} userId={userId} />
          )}
        </>
      )}
    </div>
  )
}
