import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label } from '@/components/ui/field'
import type { Profile } from '@/lib/types'
import { useUpdateSocialLinks, type SocialLinks } from '../api/update-social-links'
import { SOCIAL_FIELDS, type SocialKey } from '../constants'
import { socialLinkError } from '../validation'
import { Card } from '@/components/ui/card'

export function SocialLinksSection({ userId, links }: { userId: string; links: Profile['social_links'] }) {
  const [values, setValues] = useState<SocialLinks>(() =>
    Object.fromEntries(SOCIAL_FIELDS.map(({ key }) => [key, links?.[key] ?? ''])),
  )
  const [errors, setErrors] = useState<Partial<Record<SocialKey, string>>>({})
  const update = useUpdateSocialLinks(userId)
  return (
    <Card title="Social Links" description="Where people can find you elsewhere. Leave a field empty to remove it.">
      <form
        noValidate
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault()
          const found: Partial<Record<SocialKey, string>> = {}
          for (const { key } of SOCIAL_FIELDS) {
            const error = socialLinkError(values[key] ?? '')
            if (error) found[key] = error
          }
          setErrors(found)
          if (Object.keys(found).length === 0) update.mutate(values)
        }}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          {SOCIAL_FIELDS.map(({ key, label, placeholder }) => (
            <div key={key}>
              <Label htmlFor={`social-${key}`}>{label}</Label>
              <Input
                id={`social-${key}`}
                type="url"
                inputMode="url"
                value={values[key] ?? ''}
                placeholder={placeholder}
                aria-invalid={!!errors[key]}
                aria-describedby={errors[key] ? `social-${key}-error` : undefined}
                onChange={(e) => {
                  setValues((v) => ({ ...v, [key]: e.target.value }))
                  if (errors[key]) setErrors((x) => ({ ...x, [key]: undefined }))
                }}
              />
              <FieldError id={`social-${key}-error`}>{errors[key]}</FieldError>
            </div>
          ))}
        </div>
        <div className="flex justify-end">
          <Button type="submit" disabled={update.isPending}>
            {update.isPending ? 'Saving...' : 'Save social links'}
          </Button>
        </div>
      </form>
    </Card>
  )
}
