// What the upload form edits: a new template, a loaded draft, or a rejected
// template being resubmitted.
export type UploadSource =
  | { kind: 'new' }
  | { kind: 'draft'; id: string }
  | { kind: 'rejected'; id: string; originalTemplateId: string | null }
