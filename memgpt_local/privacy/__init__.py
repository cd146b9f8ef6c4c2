"""Privacy of the memory file: encryption keys and conversions, and real forgetting.

``keys`` finds the passphrase (OS keyring, environment, terminal prompt), ``crypto``
encrypts, decrypts and re-keys a file by writing a verified copy and swapping it in, and
``forget`` removes messages and passages so that their text survives nowhere in the file.
"""
