/**
 * A self-signed certificate and its key for TLS servers in tests only (127.0.0.1 and localhost, valid
 * until 2126), made with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500`.
 * It guards nothing: it lets a test trust one server on purpose, and see an untrusted one refused.
 */
export const TEST_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBuDCCAV+gAwIBAgIUJSb6+7bEhCmq25wTA2SkqZwJAmwwCgYIKoZIzj0EAwIw
IzEhMB8GA1UEAwwYaWR2LXBpcGVsaW5lIHRlc3Qgc2VydmVyMCAXDTI2MTEyNzA3
MDgyOVoYDzIxMjYxMTAzMDcwODI5WjAjMSEwHwYDVQQDDBhpZHYtcGlwZWxpbmUg
dGVzdCBzZXJ2ZXIwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARc/F34q2ye8RYl
umstW5HKwO4ZrP7y0L4ZkUO15RQ3wnVnwIxs6KvGi4j8fjQeN2p3yCc71tS8nCJ4
K5G/B5r5o28wbTAdBgNVHQ4EFgQUiLjOaZGhhMQT916mH4Fg66o1jr0wHwYDVR0j
BBgwFoAUiLjOaZGhhMQT916mH4Fg66o1jr0wDwYDVR0TAQH/BAUwAwEB/zAaBgNV
HREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZIzj0EAwIDRwAwRAIgaXMk8WDQ
5j7SIU+xNJX+46nQv/cpl+HYCcKWdxbmrTsCIE5Im4MX7tkeiHDTn2L/iXoRITlT
sEeeWFhz0nrsEgCc
-----END CERTIFICATE-----
`;

export const TEST_TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgV4bQIkvAlbhSbD6x
6fkBsWBaPpPuBUYyhTX7ZBZcpG6hRANCAARc/F34q2ye8RYlumstW5HKwO4ZrP7y
0L4ZkUO15RQ3wnVnwIxs6KvGi4j8fjQeN2p3yCc71tS8nCJ4K5G/B5r5
-----END PRIVATE KEY-----
`;
