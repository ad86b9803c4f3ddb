# Homebrew formula for Docket, built from source with cargo.
#   brew install --build-from-source ./packaging/homebrew/docket.rb
#   brew services start docket
# Before publishing it in a tap, set `homepage`, `url` and `sha256` to the real release
# tarball (`brew fetch --build-from-source` prints the checksum); `--HEAD` builds from git.
class Docket < Formula
  desc "Self-hosted OAuth 2 provider and document-signing service in one binary"
  homepage "https://github.com/docket/docket"
  url "https://github.com/docket/docket/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"
  head "https://github.com/docket/docket.git", branch: "main"

  depends_on "rust" => :build

  def install
    system "cargo", "install", *std_cargo_args
    man1.install "packaging/docket.1"
  end

  def post_install
    (var/"docket").mkpath
    (var/"log").mkpath
  end

  service do
    run [opt_bin/"docket", "serve", "--data-dir", var/"docket"]
    keep_alive true
    working_dir var/"docket"
    log_path var/"log/docket.log"
    error_log_path var/"log/docket.log"
  end

  def caveats
    <<~EOS
      Docket keeps its data in #{var}/docket and serves https://localhost:8443 by default,
      with a certificate from its own CA: #{var}/docket/tls/ca.pem
      Create the first user with:
        docket --data-dir #{var}/docket user add you@example.com --name "Your Name"
    EOS
  end

  test do
    require "socket"

    assert_match "docket", shell_output("#{bin}/docket --version")

    port = TCPServer.open("127.0.0.1", 0) { |s| s.addr[1] }
    pid = spawn bin/"docket", "serve", "--tls", "off", "--listen", "127.0.0.1:#{port}",
                "--data-dir", testpath/"data",
                out: testpath/"serve.log", err: testpath/"serve.log"
    begin
      healthy = false
      50.times do
        sleep 0.2
        healthy = quiet_system "curl", "-fsS", "--max-time", "2", "http://127.0.0.1:#{port}/healthz"
        break if healthy
      end
      assert healthy, "no answer from /healthz:\n#{(testpath/"serve.log").read}"
      assert_match '"status":"ok"', shell_output("curl -fsS http://127.0.0.1:#{port}/healthz")
    ensure
      Process.kill("TERM", pid)
      Process.wait(pid)
    end
  end
end
