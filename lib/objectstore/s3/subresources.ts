/** Query parameters that select an S3 sub-resource; requests carrying others than those served are refused, not misread. */
export const SUBRESOURCES = new Set([
  "accelerate", "acl", "analytics", "attributes", "cors", "delete", "encryption", "intelligent-tiering", "inventory",
  "legal-hold", "lifecycle", "location", "logging", "metrics", "notification", "object-lock", "ownershipControls",
  "partNumber", "policy", "policyStatus", "publicAccessBlock", "replication", "requestPayment", "restore", "retention",
  "select", "tagging", "torrent", "uploadId", "uploads", "versionId", "versioning", "versions", "website",
]);
