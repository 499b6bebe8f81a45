import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';

/**
 * Certificate authorities and certificates made in the test, for mutual TLS between Colibri and a fake
 * PSP. Node can parse certificates but not make them, so node-forge builds and signs them; the RSA keys
 * come from node:crypto, which makes them much faster than forge would.
 */

export interface Issued {
  readonly cert: string;
  readonly key: string;
  /** SHA-256 fingerprint as Node prints it (`AB:CD:…`). */
  readonly fingerprint256: string;
}

export interface TestCa extends Issued {
  /** A certificate this CA signs: `server` for 127.0.0.1 and localhost, `client` for mutual TLS clients. */
  issue(commonName: string, usage: 'server' | 'client'): Issued;
}

function rsaKeys(): { keyPem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { keyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string, publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

function build(subject: string, publicPem: string, issuer: { name: forge.pki.CertificateField[]; keyPem: string }, extensions: object[]): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  // A positive serial: its first byte below 0x80.
  cert.serialNumber = `1${randomBytes(9).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: subject }, { name: 'organizationName', value: 'Colibri tests' }]);
  cert.setIssuer(issuer.name);
  cert.setExtensions(extensions);
  cert.sign(forge.pki.privateKeyFromPem(issuer.keyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

function issued(cert: string, key: string): Issued {
  return { cert, key, fingerprint256: new X509Certificate(cert).fingerprint256 };
}

/** A self-signed CA. @example const ca = createTestCa('Test PSP CA'); const server = ca.issue('127.0.0.1', 'server'); */
export function createTestCa(name: string): TestCa {
  const { keyPem, publicPem } = rsaKeys();
  const caName = [{ name: 'commonName', value: name }, { name: 'organizationName', value: 'Colibri tests' }];
  const cert = build(name, publicPem, { name: caName, keyPem }, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  return {
    ...issued(cert, keyPem),
    issue(commonName, usage) {
      const leaf = rsaKeys();
      const extensions: object[] = [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: usage === 'server', clientAuth: usage === 'client' },
      ];
      if (usage === 'server') extensions.push({ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] });
      return issued(build(commonName, leaf.publicPem, { name: caName, keyPem }, extensions), leaf.keyPem);
    },
  };
}

/** A folder for PEM files that Colibri reads by path; `remove` deletes it. */
export function pemFolder(): { write(name: string, pem: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'colibri-pki-'));
  return {
    write: (name, pem) => {
      const path = join(dir, name);
      writeFileSync(path, pem, { mode: 0o600 });
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
