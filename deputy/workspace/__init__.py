"""Each user's workspace: their files, and code run confined over a copy of them."""
