"""What the client learns about the server it talks to: its slots, what it reports, what it refuses."""
