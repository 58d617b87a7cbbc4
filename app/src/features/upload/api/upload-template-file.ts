// Where the upload form stores files: shared with the edit screen's new
// versions, so it lives in @/lib/template-upload.
export * from '@/lib/template-upload'
