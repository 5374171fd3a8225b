/** Paths under Easel's origin where the embedded store answers each protocol (app/storage/*). */
export const S3_MOUNT_PATH = "/storage/s3";
export const GCS_MOUNT_PATH = "/storage/gcs";
