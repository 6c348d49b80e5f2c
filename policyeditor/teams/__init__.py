"""Teams of users with roles; drafts and reviews build on them."""
