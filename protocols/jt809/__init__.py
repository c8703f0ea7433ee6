"""JT/T 809 (platform-to-platform data exchange). Today only its message catalogue; the codec comes with
the data-exchange links."""
