"""Kinds a second outside attacker got through: vendor prefixes with no key name,
positional SDK/crypto/CLI arguments, key blobs, code declarations, secret-printing commands,
webhook paths, session cookies, secrets fed to commands; and false redactions of near-misses.

Every instance is written here (values invented; shapes from each vendor's documentation). A kind
is caught when no 6-character run of the secret is left; a near-miss must come back unchanged.
"""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub, scrub_texts

KINDS: dict[str, list[tuple[str, str]]] = {
    "vendor_prefix": [
        ("SENTRY_AUTH_TOKEN missing, using sntrys_eyJpYXQiOjE3MjAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_q8ZkL3mNp7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7Xy",
         "sntrys_eyJpYXQiOjE3MjAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_q8ZkL3mNp7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7Xy"),
        ("resend.api_key = 're_Bq3x9zKm_7RtVbNm2KqW4Xy8ZkLm3Np7'", "re_Bq3x9zKm_7RtVbNm2KqW4Xy8ZkLm3Np7"),
        ("curl -H 'x: re_9Xk4mQ2p_LtN2bHcRj5YfDs8Ae4Uo1Ki' https://api.resend.com/emails", "re_9Xk4mQ2p_LtN2bHcRj5YfDs8Ae4Uo1Ki"),
        ("login with api_org_kYtRqWvLpZnXmBcDfGhJsKaQwErTyUiOp", "api_org_kYtRqWvLpZnXmBcDfGhJsKaQwErTyUiOp"),
        ("X-Figma-Token: figd_Q7x9Lm2Vb4Nc8Kd1Hs5Tf3Wg6Jp0Ry_ZaXcVbNmQwErTy", "figd_Q7x9Lm2Vb4Nc8Kd1Hs5Tf3Wg6Jp0Ry_ZaXcVbNmQwErTy"),
        ("notion = Client(auth='ntn_31846273950Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z')", "ntn_31846273950Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"),
        ("old integration: secret_Wq8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7Xy", "secret_Wq8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7Xy"),
        ("postgresql://neondb_owner:npg_Xk4mQ9zLp2Wv@ep-cool-1.us-east-2.aws.neon.tech/neondb", "npg_Xk4mQ9zLp2Wv"),
        ("the neon role now uses npg_Rt7Vb2Nm9KqW4 as its password", "npg_Rt7Vb2Nm9KqW4"),
        ("cred = credential.Credential(\"AKIDq8Lm2Vx9Rt4Bn7Kc3Wz6Hf1Jp5Gs0Yd4\", sk)", "AKIDq8Lm2Vx9Rt4Bn7Kc3Wz6Hf1Jp5Gs0Yd4"),
        ("MAPBOX_DOWNLOADS=sk.eyJ1IjoiYWNtZSIsImEiOiJjbHg5ejJ3MDAwMDAwMnFxcXFxcXFxcXEifQ.Xk3mQ9zLp2WvRt7Vb2Nm9K",
         "sk.eyJ1IjoiYWNtZSIsImEiOiJjbHg5ejJ3MDAwMDAwMnFxcXFxcXFxcXEifQ.Xk3mQ9zLp2WvRt7Vb2Nm9K"),
        ("dotnet nuget push pkg.nupkg -k oy2ka7wqzpt5xj4rlm3gvnbc6dhfse8iu0y1w2e3r4t5y6u7 -s nuget.org",
         "oy2ka7wqzpt5xj4rlm3gvnbc6dhfse8iu0y1w2e3r4t5y6u7"),
        ("-H 'Authorization: Bearer AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F'",
         "MLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F"),
        ("[default]\naws_session_token = IQoJb3JpZ2luX2VjEHUaCXVzLWVhc3QtMSJHMEUCIQDxk3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7XyAbCdEfGh==",
         "IQoJb3JpZ2luX2VjEHUaCXVzLWVhc3QtMSJHMEUCIQDxk3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7XyAbCdEfGh=="),
        ("token: FwoGZXIvYXdzEBYaDK3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7XyAbCdEfGhIjKlMnOpQrStUvWx",
         "FwoGZXIvYXdzEBYaDK3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7XyAbCdEfGhIjKlMnOpQrStUvWx"),
        ("fly deploy -t fo1_Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2", "fo1_Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2"),
        ("my nostr key nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5",
         "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5"),
        ("ld = LDClient(Config('sdk-7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'))", "7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"),
        ("curl -H 'Authorization: api-3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' https://app.launchdarkly.com/api/v2/flags",
         "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"),
        ("client = Perplexity(key) # pplx-Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6G",
         "pplx-Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6G"),
        ("tavily: 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", "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"),
        ("HubSpot private app pat-na1-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"),
    ],
    "sdk_positional": [
        ("client = Client('AC3f2b1c4d5e6f7a8b9c0d1e2f3a4b5c6d', 'f1e2d3c4b5a697887766554433221100')", "f1e2d3c4b5a697887766554433221100"),
        ("const client = twilio('AC0a1b2c3d4e5f60718293a4b5c6d7e8f9', '9f8e7d6c5b4a39281706f5e4d3c2b1a0');", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
        ('co = cohere.Client("Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2V")', "Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2V"),
        ("client = SearchClient.create('LQ8XKZ2M1B', '0a1b2c3d4e5f60718293a4b5c6d7e8f9')", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
        ("const search = algoliasearch('YourAppID9', 'c3d4e5f60718293a4b5c6d7e8f90a1b2');", "c3d4e5f60718293a4b5c6d7e8f90a1b2"),
        ('g = Github("ghu_Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7")', "Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7"),
        ("$ snyk auth 1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b", "1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b"),
        ("$ wandb login 0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567"),
        ("ngrok config add-authtoken 2Xk4mQ9zLp2WvRt7Vb2Nm9KqW4_Xy8ZkLm3Np7Rt2Vx9B", "2Xk4mQ9zLp2WvRt7Vb2Nm9KqW4_Xy8ZkLm3Np7Rt2Vx9B"),
        ("snyk config set api=1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b", "1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b"),
        ("$client = Algolia\\AlgoliaSearch\\SearchClient::create('APPID1', 'aa11bb22cc33dd44ee55ff6677889900');",
         "aa11bb22cc33dd44ee55ff6677889900"),
        ("client = Algolia::Search::Client.create('APPID1', 'bb11bb22cc33dd44ee55ff6677889900')", "bb11bb22cc33dd44ee55ff6677889900"),
    ],
    "crypto_argument": [
        ("sig = hmac.new(b'q8Zk3LmNp7Rt2Vx9', msg, hashlib.sha256).hexdigest()", "q8Zk3LmNp7Rt2Vx9"),
        ("cipher = AES.new(b'Sixteen byte k3y', AES.MODE_GCM)", "Sixteen byte k3y"),
        ("f = Fernet(b'Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9B=')", "Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9B="),
        ("const c = crypto.createCipheriv('aes-256-cbc', 'Rt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc', iv)", "Rt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc"),
        ("const h = crypto.createHmac('sha256', 'wh-signing-k3y-2024').update(body)", "wh-signing-k3y-2024"),
        ("const token = jwt.sign({ id: user.id }, 'my-jwt-s3cret-value', { expiresIn: '1h' })", "my-jwt-s3cret-value"),
        ("encoded = jwt.encode(payload, 'pyjwt-Secr3t-k', algorithm='HS256')", "pyjwt-Secr3t-k"),
        ('mac := hmac.New(sha256.New, []byte("go-hmac-k3y-99"))', "go-hmac-k3y-99"),
        ('SecretKeySpec spec = new SecretKeySpec("java-aes-key-16b".getBytes(), "AES");', "java-aes-key-16b"),
        ('const w = new ethers.Wallet("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")',
         "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"),
        ("acct = Account.from_key('0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63')",
         "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"),
        ("totp = pyotp.TOTP('JBSWY3DPEHPK3PXPJBSWY3DP')", "JBSWY3DPEHPK3PXPJBSWY3DP"),
        ("otp = pyotp.totp.TOTP('KRSXG5CTMVRXEZLU')", "KRSXG5CTMVRXEZLU"),
        ('block, err := aes.NewCipher([]byte("32-byte-long-k3y-0123456789abcde"))', "32-byte-long-k3y-0123456789abcde"),
        ("cipher = Cipher(algorithms.AES(b'Sixteen byte k3y'), modes.GCM(iv))", "Sixteen byte k3y"),
        ("token = jwt.encode({'sub': 1}, key='Kw-Jwt-S3cret', algorithm='HS256')", "Kw-Jwt-S3cret"),
    ],
    "key_blob": [
        ("$ cat ~/.config/solana/id.json\n[174,47,154,16,202,193,206,113,199,190,53,133,169,175,31,56,222,53,138,189,224,216,117,173,"
         "10,149,53,45,73,251,237,246,15,185,186,82,177,240,148,69,241,227,167,80,141,89,240,121,121,35,172,247,68,251,226,218,48,63,"
         "176,109,168,89,238,135]", "202,193,206,113"),
        ("const payer = Keypair.fromSecretKey(Uint8Array.from([12, 250, 3, 99, 45, 67, 89, 101, 23, 45, 67, 89, 11, 13, 17, 19, 23, "
         "29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, "
         "163, 167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239, 241, 251, 1, 2]));", "149, 151, 157"),
        ("data:\n  tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFRRUZBQVNDQktjd2dnU2pBZ0VBQW9JQkFRQzd=\n",
         "UFJJVkFURSBLRVkt"),
        ('"ssh-privatekey": "LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0KYjNCbGJuTnphQzFyWlhrdGRqRUFBQUFBQkc1dmJtVUFBQUE="',
         "BPUEVOU1NIIFBSSVZBVEUg"),
        ("binaryData:\n  keystore.jks: /u3+7QAAAAIAAAABAAAAAQAFbXlrZXkAAAGMq8Zk3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9B==\n",
         "AAAAAQAFbXlrZXkAAAGM"),
        ("$ cat /etc/wireguard/privatekey\nGI6EdUSzU4kLdDYrXq7bAcv8hpBL5Zc4Q2kvTlHz+Xw=\n", "GI6EdUSzU4kLdDYrXq7bAcv8hpBL5Zc4Q2kvTlHz+Xw="),
        ("$ cat ~/.erlang.cookie\nXKQZLMPWRTVBNHGFJDSA\n", "XKQZLMPWRTVBNHGFJDSA"),
        ("erl -sname node1 -setcookie Qx7Kd9Lm2Vb4 -remsh app@host", "Qx7Kd9Lm2Vb4"),
        ("Can't scan the QR code? Enter this key instead: 5xqk m7wz 3p2d hvjl ntr4 ybce 6g7s a2fu", "hvjl ntr4 ybce"),
        ("Your setup key:\nJBSW Y3DP EHPK 3PXP JBSW Y3DP", "EHPK 3PXP"),
    ],
    "code_declaration": [
        ("key = ENV.fetch('STRIPE_SECRET', 'rk9Xk4mQ9zLp2WvRt7Vb2N')", "rk9Xk4mQ9zLp2WvRt7Vb2N"),
        ("DB_PASS = os.getenv('DB_PASSWORD', 'fallback-Pa55word')", "fallback-Pa55word"),
        ('DataSource ds = builder.username("svc").password("Tr0ub4dor&3-horse").build();', "Tr0ub4dor&3-horse"),
        ('#define WIFI_PASSWORD "hunter2-Garage77"', "hunter2-Garage77"),
        ("#define MQTT_PASS  \"mqtt-Br0ker!\"", "mqtt-Br0ker!"),
        ('DB_PASSWORD: str = "Wint3r-Is-C0ming!"', "Wint3r-Is-C0ming!"),
        ('val password: String = "Kotl1nS3cret#9"', "Kotl1nS3cret#9"),
        ('const DB_PASSWORD: &str = "rusty-Pa55word-42";', "rusty-Pa55word-42"),
        ("static API_TOKEN: &'static str = \"st4tic-T0ken-value\";", "st4tic-T0ken-value"),
        ('const char *wifi_pass = "esp32-W1fi-Pass";', "esp32-W1fi-Pass"),
        ('private static final String DB_PASSWORD = "J4va-Final-Pw";', "J4va-Final-Pw"),
        ("set -x DB_PASSWORD fishy-Pa55-2024", "fishy-Pa55-2024"),
        ("set -gx GITHUB_TOKEN ghx-F1sh-T0ken-99", "ghx-F1sh-T0ken-99"),
        ("setenv SMTP_PASSWORD csh-Mail-Pw7", "csh-Mail-Pw7"),
        ("<db:password>Xml-Ns-Pa55!</db:password>", "Xml-Ns-Pa55!"),
        ("mật_khẩu = 'MatKhau@2024'", "MatKhau@2024"),
        ("kata_sandi: RahasiaSekali99", "RahasiaSekali99"),
    ],
    "command_output": [
        ('$ terraform output admin_password\n"Tf-Adm1n-Pa55w0rd"\n', "Tf-Adm1n-Pa55w0rd"),
        ('$ terraform output -json\n{\n  "db_password": {\n    "sensitive": true,\n    "type": "string",\n    "value": "Json-0utput-S3cret"\n  }\n}',
         "Json-0utput-S3cret"),
        ('terraform output -json | jq\n{\n  "api": {\n    "sensitive": true,\n    "type": "string",\n    "value": "k7Pq2Wx9Zm4Lb8Nc"\n  }\n}',
         "k7Pq2Wx9Zm4Lb8Nc"),
        ("$ fly tokens create deploy\nFlyV1 fm2_lJPECAAAAAAAAk3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3Tv7Xy\n",
         "lJPECAAAAAAAAk3mQ9zLp2Wv"),
        ("$ printenv DB_PASSWORD\nPr1ntenv-Secr3t\n", "Pr1ntenv-Secr3t"),
        ('$ echo "$STRIPE_SECRET_KEY"\nrk_9Xk4mQ9zLp2WvRt7Vb2Nm\n', "9Xk4mQ9zLp2WvRt7Vb2Nm"),
        ("PS C:\\> $env:API_TOKEN\nPsh-T0ken-Value-77\n", "Psh-T0ken-Value-77"),
        ("$ bin/elasticsearch-reset-password -u elastic\nPassword for the [elastic] user successfully reset.\nNew value: q7X=pL2*mZ9vR4tK_wN8\n",
         "q7X=pL2*mZ9vR4tK_wN8"),
        ("$ cat passphrase.txt\ncorrect horse battery staple 42\n", "correct horse battery staple 42"),
        ("$ bw unlock --raw\nXk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8ZkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5Lm8Nq0Ps3==\n", "Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8"),
        ("$ secret-tool lookup service smtp user me\nS3cretT00l-Pw\n", "S3cretT00l-Pw"),
        ("$ pulumi config get dbPassword\nPulum1-Pw-x\n", "Pulum1-Pw-x"),
        ("$ heroku config:get DATABASE_PASSWORD -a shop\nHer0ku-Db-Pw\n", "Her0ku-Db-Pw"),
    ],
    "webhook": [
        ("https://contoso.webhook.office.com/webhookb2/3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d@72f988bf-86f1-41af-91ab-2d7cd011db47"
         "/IncomingWebhook/9a8b7c6d5e4f4a3b2c1d0e9f8a7b6c5d/4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8", "9a8b7c6d5e4f4a3b2c1d0e9f8a7b6c5d"),
        ("TEAMS_HOOK=https://acme.webhook.office.com/webhookb2/11111111-2222-4333-8444-555555555555@66666666-7777-4888-9999-000000000000"
         "/IncomingWebhook/abcdef0123456789abcdef0123456789/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee/V2Xk4mQ9zLp2WvRt7Vb2Nm9KqW4Xy8",
         "abcdef0123456789abcdef0123456789"),
        ("POST https://hooks.zapier.com/hooks/catch/1234567/bq3x9zk/ with payload", "bq3x9zk"),
        ("requests.post('https://hooks.zapier.com/hooks/catch/98765/2f9xk1a/', json=data)", "2f9xk1a"),
        ("curl -X POST https://chat.example.com/hooks/xq8kzm3p7rt2vx9bc4df6gh1jk -d '{}'", "xq8kzm3p7rt2vx9bc4df6gh1jk"),
        ("https://hook.eu1.make.com/q8zk3lmnp7rt2vx9bc4df6gh1jk5lm8n", "q8zk3lmnp7rt2vx9bc4df6gh1jk5lm8n"),
        ("https://maker.ifttt.com/trigger/door_open/with/key/dXk4mQ9zLp2WvRt7Vb2Nm9", "dXk4mQ9zLp2WvRt7Vb2Nm9"),
    ],
    "session_cookie": [
        ("curl -b '_myapp_session=QkZ3dVhPZ0ZqTnpaa0xtM05wN1J0MlZ4OUJjNERmNg%3D%3D--a1b2c3d4e5f6a7b8c9d0' https://app/",
         "QkZ3dVhPZ0ZqTnpaa0xtM05wN1J0"),
        ("# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1735689600\tsessionid\tx9Kq3mZLp7Rt2Vx9Bc4Df6Gh1Jk5\n",
         "x9Kq3mZLp7Rt2Vx9Bc4Df6Gh1Jk5"),
        ("#HttpOnly_.github.com\tTRUE\t/\tTRUE\t0\tuser_session\tZk3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8\n", "Zk3mQ9zLp2WvRt7Vb2Nm9KqW4Xy8"),
        ("GET /app/cart;jsessionid=8F3B2C1D4E5F6A7B8C9D0E1F2A3B4C5D?item=4", "8F3B2C1D4E5F6A7B8C9D0E1F2A3B4C5D"),
        ('[{"domain": ".example.com", "name": "sid", "value": "s%3AXk4mQ9zLp2WvRt7Vb2Nm9K.q8Zk3LmNp7Rt2"}]', "Xk4mQ9zLp2WvRt7Vb2Nm9K"),
        ('{"cookies": [{"name": "auth_token", "value": "Qm9zLp2WvRt7Vb2Nm9KqW4Xy", "domain": "app.test", "path": "/"}]}',
         "Qm9zLp2WvRt7Vb2Nm9KqW4Xy"),
        ("connect.sid=s%3AkLm3Np7Rt2Vx9Bc4Df6Gh1Jk5.Xk4mQ9zLp2WvRt7Vb2Nm9K", "kLm3Np7Rt2Vx9Bc4Df6Gh1Jk5"),
    ],
    "fed_to_command": [
        ("$ echo 'Smb-Pa55word!' | smbpasswd -s -a alice", "Smb-Pa55word!"),
        ("echo -e 'Kerb3ros-Pw' | kinit alice@EXAMPLE.COM", "Kerb3ros-Pw"),
        ("$ printf '%s\\n' 'Printf-Secr3t' | mkpasswd -s", "Printf-Secr3t"),
        ("$ vncpasswd <<< 'Vnc-Pa55'", "Vnc-Pa55"),
        ("$ passwd alice <<EOF\nHeredoc-Pa55!\nHeredoc-Pa55!\nEOF", "Heredoc-Pa55!"),
        ('expect "password:" { send "Exp3ct-Secret\\r" }', "Exp3ct-Secret"),
        ('expect -re "(P|p)assword" { exp_send "Hunter-22x\\r" }', "Hunter-22x"),
        ("racadm -r 10.0.0.5 -u root -p Rac4dm-Pw getsysinfo", "Rac4dm-Pw"),
        ("net user svc_backup B4ckup!Pass /add", "B4ckup!Pass"),
        ("expdp system/Orcl-Expdp1@ORCLPDB directory=dp dumpfile=x.dmp", "Orcl-Expdp1"),
        ("impdp hr/Hr-Imp0rt@pdb1 schemas=hr", "Hr-Imp0rt"),
        ("PRAGMA key = 'SqlC1pher-K3y';", "SqlC1pher-K3y"),
        ('sqlite> ATTACH DATABASE "enc.db" AS enc KEY "Att4ch-K3y";', "Att4ch-K3y"),
        ('dotnet user-secrets set "Smtp:Password" "Dotn3t-Smtp!"', "Dotn3t-Smtp!"),
        ("rocommunity Pr1v4teCommun1ty 10.0.0.0/8", "Pr1v4teCommun1ty"),
        ("rwcommunity6 Wr1te-Comm  fd00::/8", "Wr1te-Comm"),
        ('%any : PSK "Ipsec-Psk-2024!"', "Ipsec-Psk-2024!"),
        ('alice : XAUTH "Xauth-Pw-77"', "Xauth-Pw-77"),
        ('"alice" "Pgb0uncer-Pw"', "Pgb0uncer-Pw"),
        ('"bob" "SCRAM-SHA-256$4096:c2FsdA==$a2V5:c2VydmVy"', "SCRAM-SHA-256$4096"),
        ("machine imap.example.com login me password correct horse battery staple", "horse battery staple"),
        ("machine smtp.example.com login me password two words port 587", "two words"),
        ('<String><Key>Password</Key><Value ProtectInMemory="True">K33pass-Entry!</Value></String>', "K33pass-Entry!"),
        ("$ echo 53757065725365637265744b6579 | xxd -r -p > key.bin", "53757065725365637265744b6579"),
        ("await page.fill('#password', 'Playwr1ght-Pw');", "Playwr1ght-Pw"),
        ("await page.getByLabel('Password').fill('L4bel-Fill-Pw');", "L4bel-Fill-Pw"),
        ("snmpwalk -v2c -c S3cretComm 10.0.0.1", "S3cretComm"),
        ("cy.get('input[name=password]').type('Cypr3ss-Pw!')", "Cypr3ss-Pw!"),
        ('driver.find_element(By.ID, "password").send_keys("Sel3nium-Pw")', "Sel3nium-Pw"),
        ("conn.simple_bind_s('cn=admin,dc=example,dc=org', 'Ld4p-Bind-Pw')", "Ld4p-Bind-Pw"),
        ("ldap_bind($ds, 'cn=root,dc=x', 'Php-Ld4p-Pw');", "Php-Ld4p-Pw"),
    ],
}

NEAR_MISSES = [
    "passwd: password updated successfully",
    "passwd: all authentication tokens updated successfully.",
    "password = getpass.getpass('Password: ')",
    'pw = getpass.getpass(prompt="Enter password: ")',
    "STRIPE_SECRET_KEY=sk_live_...",
    "OPENAI_API_KEY=sk-...",
    "export GITHUB_TOKEN=ghp_...",
    'api_key: "sk-...4f2a"',
    "token: ghp_…a1b2",
    'const DB_PASSWORD: &str = env!("DB_PASSWORD");',
    "fn connect(password: &str) -> Result<()>",
    "    password: String,",
    "let password: String = read_password()?;",
    "#define PASSWORD_MAX_LEN 64",
    "set -x GNUPGHOME ~/.gnupg",
    "hmac.new(key, msg, hashlib.sha256)",
    "AES.new(key, AES.MODE_GCM)",
    "jwt.sign(payload, process.env.JWT_SECRET)",
    "page.fill('#username', 'alice')",
    "page.fill('#password', password)",
    "Client(account_sid, auth_token)",
    "client = Client('localhost', 8080)",
    "re_path('^api/', include(router.urls))",
    "secret_key_base_for_testing_only",
    "api-gateway-7c1e2d3f is the service",
    "New value: 42",
    "$ printenv PATH\n/usr/local/bin:/usr/bin\n",
    "$ terraform output vpc_id\n\"vpc-0abc\"\n",
    "rocommunity public localhost",
    "snmpwalk -v2c -c public 10.0.0.1",
    "echo $API_TOKEN\ncurl -H 'Authorization: Bearer $API_TOKEN' https://api\n",
    "$ cat token_utils.py\nimport os\n",
    "$ cat /etc/passwd\nroot:x:0:0:root:/root:/bin/bash\n",
    "echo 'data' | gpg --encrypt -r me",
    "page.getByLabel('Email').fill('alice@example.com')",
    # seen in installed libraries' code (alembic, cognee, pyOpenSSL, fastembed): must stay
    '        upgrade_token: str = "upgrades",',
    'env_key = os.environ.get("NEO4J_ENCRYPTION_KEY", "test_key")',
    'if type == FILETYPE_PEM and passphrase is not None:\n    raise ValueError(\n        "only PEM supports encryption"\n    )',
    "the count is less than max tokens\n        return None\n",
    "GET /hooks/github/push HTTP/1.1",
    "https://example.com/webhooks/stripe",
    "numbers = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
    "tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=",
    "echo 'hello world' | wc -c",
    "$ cat notes.txt\nremember to rotate keys\n",
]


def _caught(secret: str, text: str) -> bool:
    return not any(secret[i : i + 6] in text for i in range(max(1, len(secret) - 5)))


CASES = [(kind, text, secret) for kind, items in KINDS.items() for text, secret in items]


@pytest.mark.parametrize(("kind", "text", "secret"), CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)])
def test_each_kind_is_caught(kind: str, text: str, secret: str) -> None:
    out = scrub(text).text
    assert _caught(secret, out), (kind, out)


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_stay(text: str) -> None:
    assert scrub(text).text == text


def test_kinds_are_caught_in_a_joined_session() -> None:
    texts = [text for _, text, _ in CASES] + NEAR_MISSES
    scrubbed, _ = scrub_texts(texts)
    for (_, text, secret), out in zip(CASES, scrubbed, strict=False):
        assert _caught(secret, out), text
    assert scrubbed[len(CASES) :] == NEAR_MISSES
    # a rule never reads across the field separator: joined equals one by one (a here-document opener
    # in one field once took the next field's lines as its body)
    assert scrubbed == [scrub(text).text for text in texts]
    fields = ["vault login is what the service uses.", '{"command": "cat >> .env <<\'EOF\'\\nx\\nEOF"}',
              "$ cat .env\nplain line here\n"]
    assert scrub_texts(fields)[0] == [scrub(field).text for field in fields]


def test_markers_name_the_kind() -> None:
    assert "[REDACTED:nostr_private_key]" in scrub("nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5").text
    assert "[REDACTED:webhook_url]" in scrub("https://hooks.zapier.com/hooks/catch/1234567/bq3x9zk/").text
    assert "[REDACTED:cookie]" in scrub("GET /a;jsessionid=8F3B2C1D4E5F6A7B8C9D0E1F2A3B4C5D").text
    # the value goes whole, the key and the surrounding code stay
    assert scrub('const DB_PASSWORD: &str = "rusty-Pa55word-42";').text == 'const DB_PASSWORD: &str = "[REDACTED:password]";'
    assert scrub("machine h login me password a b c d").text == "machine h login me password [REDACTED:password]"


def test_hostile_input_stays_linear() -> None:
    import time

    texts = ["Client(" * 4000, "page.fill('#password', " * 2000, "hmac.new(b'" * 3000, "\"name\": \"sid\", " * 3000, "echo 'x' " * 3000 + "| passwd", "[1," * 5000,
             "set -x " * 4000, "/hooks/" + "a1b2c3/" * 3000, "terraform output x\n" * 2000]
    for text in texts:
        started = time.perf_counter()
        scrub(text)
        assert time.perf_counter() - started < 5.0, text[:40]


def test_each_marker_is_counted_once_and_scrub_is_idempotent() -> None:
    # A later pass must not read a marker as a value (sessionid=[REDACTED:cookie] was counted five times).
    from memctl.scrub.core import MARKER_PATTERN

    for _, text, _ in CASES:
        result = scrub(text)
        assert sum(result.counts.values()) == len(MARKER_PATTERN.findall(result.text)), text
        assert scrub(result.text).text == result.text, text
