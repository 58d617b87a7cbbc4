// What the upload form edits: a new template, a loaded draft, a rejected
// template being resubmitted, or the user's own submission still waiting for
// review (replaced by what is submitted or saved; see ../api/replace-pending).
// originalTemplateId: the published template this edits (approval replaces
// it); a draft saved from such a rejected or pending edit keeps it.
export type UploadSource =
  | { kind: 'new' }
  | { kind: 'draft'; id: string; originalTemplateId: string | null }
  | { kind: 'rejected'; id: string; originalTemplateId: string | null }
  | { kind: 'pending'; id: string; originalTemplateId: string | null }
