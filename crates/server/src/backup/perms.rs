//! Who may read what a backup writes.
//!
//! An archive holds every user's rows and files and the project's secrets
//! (JWT secret, API keys, the cluster's password), encrypted or not: in a
//! local folder, and in the staging folders of backups and restores, every
//! file is created 0600 and every folder 0700, with those modes from the
//! start (never opened up and closed again). A restore gives the embedded
//! cluster's user only the base backup and log it reads
//! ([`share_with_cluster`]); the secrets it lays down are 0600.

use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates `dir` and its missing parents, each 0700.
pub(super) fn private_dir_all(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Opens `path` for writing, empty, readable by its owner only: created
/// 0600; a file that was there already is made 0600 before anything is
/// written to it.
pub(super) fn create_private(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    if file.metadata()?.permissions().mode() & 0o077 != 0 {
        file.set_permissions(Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// Copies `from` to `to` as a private file (its missing folders 0700),
/// synced to disk.
pub(super) fn copy_private(from: &Path, to: &Path) -> io::Result<()> {
    if let Some(parent) = to.parent() {
        private_dir_all(parent)?;
    }
    let mut input = File::open(from)?;
    let mut output = create_private(to)?;
    io::copy(&mut input, &mut output)?;
    output.sync_all()
}

/// Lets the embedded cluster's user read `target` (a file, or a folder and
/// the files in it) below `root`, a restore's private staging folder. As
/// root, Plinth runs the cluster as [`plinth_db::cluster::SYSTEM_USER`]:
/// `root`, the folders on the way and the files are given to that user,
/// their modes still 0700/0600, so nobody else reads them (while that user
/// does not exist yet, they are opened instead: folders 0711, files 0644).
/// Otherwise the cluster runs as this process's user: nothing to do.
pub(super) fn share_with_cluster(root: &Path, target: &Path) -> anyhow::Result<()> {
    use nix::unistd::{Uid, User, chown};
    if !Uid::effective().is_root() {
        return Ok(());
    }
    let user = User::from_name(plinth_db::cluster::SYSTEM_USER)
        .ok()
        .flatten();
    let mut paths = vec![root.to_owned()];
    let mut at = root.to_owned();
    for part in target.strip_prefix(root)?.components() {
        at.push(part);
        paths.push(at.clone());
    }
    if target.is_dir() {
        paths.extend(fs::read_dir(target)?.flatten().map(|e| e.path()));
    }
    for path in paths {
        match &user {
            Some(user) => chown(&path, Some(user.uid), Some(user.gid))?,
            None => {
                let mode = if path.is_dir() { 0o711 } else { 0o644 };
                fs::set_permissions(&path, Permissions::from_mode(mode))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn private_files_and_folders_are_the_owners_only_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("plain");
        fs::write(&from, b"secret").unwrap();
        fs::set_permissions(&from, Permissions::from_mode(0o644)).unwrap();
        let to = dir.path().join("a/b/secret");
        copy_private(&from, &to).unwrap();
        assert_eq!(fs::read(&to).unwrap(), b"secret");
        assert_eq!(mode(&to), 0o600);
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        // A file there already is closed before it is written.
        let open = dir.path().join("open");
        fs::write(&open, b"old").unwrap();
        fs::set_permissions(&open, Permissions::from_mode(0o666)).unwrap();
        drop(create_private(&open).unwrap());
        assert_eq!(mode(&open), 0o600);
        assert!(fs::read(&open).unwrap().is_empty());
    }
}
