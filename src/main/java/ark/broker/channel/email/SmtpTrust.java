package ark.broker.channel.email;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS to an SMTP server whose certificate a private CA issued ({@code channels.email.caFile}): only the certificates
 * in that PEM file are trusted, and the server's name is still checked against its certificate.
 */
final class SmtpTrust {
  private SmtpTrust() {
  }

  static SSLSocketFactory trusting(Path pemFile) {
    try (InputStream in = Files.newInputStream(pemFile)) {
      Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException("channels.email.caFile " + pemFile + " holds no certificate");
      }
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int i = 0;
      for (Certificate certificate : certificates) {
        trusted.setCertificateEntry("ca-" + i++, certificate);
      }
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context.getSocketFactory();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("channels.email.caFile " + pemFile + " cannot be read as PEM certificates: "
          + e.getMessage(), e);
    }
  }
}
